// Counts the characters the string builtins produce (or JSON.parse reads) while some work runs: a
// measure of copying that does not race the clock. Work that rejoins a buffer on every push makes
// the count grow with the square of the input; work that reads each piece a bounded number of
// times keeps it a small multiple of the input's length (test/engine/stream-work.test.ts,
// test/engine/heal-work.test.ts).

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Runs `work` with the copying builtins counted; returns the characters they materialised. */
export function charactersCopied(work: () => void): number {
  let chars = 0;
  const wrapped: Array<[object, string, Method]> = [
    [Array.prototype, 'join', Array.prototype.join as Method],
    [String.prototype, 'slice', String.prototype.slice as Method],
    [String.prototype, 'substring', String.prototype.substring as Method],
    [String.prototype, 'concat', String.prototype.concat as Method],
    [String.prototype, 'trim', String.prototype.trim as Method],
    [String.prototype, 'trimStart', String.prototype.trimStart as Method],
    [String.prototype, 'trimEnd', String.prototype.trimEnd as Method],
  ];
  const parse = JSON.parse;
  for (const [owner, name, original] of wrapped) {
    Object.defineProperty(owner, name, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        const out = original.apply(this, args) as string;
        chars += out.length;
        return out;
      },
    });
  }
  JSON.parse = (text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    chars += text.length;
    return parse(text, reviver);
  };
  try {
    work();
  } finally {
    for (const [owner, name, original] of wrapped) {
      Object.defineProperty(owner, name, { configurable: true, writable: true, value: original });
    }
    JSON.parse = parse;
  }
  return chars;
}

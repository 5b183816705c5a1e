// The streaming healer costs each delta, not the text so far: counted (support/copy-counter.ts:
// the characters the string builtins copy), and timed only as a best-of-several ratio between a text
// and one eight times its size, under a bound far above linear and far below quadratic.
import t from 'tap';
import { createJsonHealer } from '../../engine/index.js';
import { makeDocument } from '../../bench/stream/document.js';
import { charactersCopied } from '../../support/copy-counter.js';

const SCHEMA = { type: 'object', properties: { content: { type: 'string' } } };

/** Pushes `doc` in `size`-character deltas and finishes; checks the deltas join to the result. */
function heal(doc: string, size: number, schema?: object): void {
  const healer = createJsonHealer({ schema });
  let sent = '';
  for (let k = 0; k < doc.length; k += size) sent += healer.push(doc.slice(k, k + size));
  const end = healer.finish();
  if (sent + end.delta !== end.result.text) throw new Error('deltas do not join to the result');
}

const shapes: Record<string, (bytes: number) => string> = {
  'an array of objects': (bytes) => makeDocument(bytes),
  'an array of objects, spaced': (bytes) => JSON.stringify(JSON.parse(makeDocument(bytes)), null, 2),
  'one long string member': (bytes) => JSON.stringify({ content: 'word '.repeat(bytes / 5) }),
  'many members': (bytes) => JSON.stringify(Object.fromEntries(Array.from({ length: bytes / 16 }, (_, k) => [`key${k}`, k]))),
  'one long bare key': (bytes) => `{${'k'.repeat(bytes)}: 1}`,
  'one long number': (bytes) => `{"n": ${'1'.repeat(bytes)}}`,
};

for (const [name, make] of Object.entries(shapes)) {
  for (const schema of [undefined, SCHEMA]) {
    t.test(`${name}${schema === undefined ? '' : ', with a schema'}: each character is copied a bounded number of times`, async (t) => {
      const small = make(1 << 14);
      const large = make(1 << 17);
      for (const size of [1, 7, 1024]) {
        const smallWork = charactersCopied(() => heal(small, size, schema));
        const largeWork = charactersCopied(() => heal(large, size, schema));
        // Pieces are joined once per 64 pushes (json-healer.ts, and the scanner's own, which also
        // keeps a long held token's pieces): 1-character deltas copy up to ~130 characters each.
        t.ok(largeWork <= 160 * large.length, `${size}-character deltas: ${largeWork} characters copied for ${large.length}`);
        t.ok(largeWork <= 12 * smallWork, `${size}-character deltas: 8x the text, ${(largeWork / smallWork).toFixed(2)}x the work`);
      }
    });
  }
}

t.test('time: 8x the text in token-sized deltas takes far less than 64x the time', async (t) => {
  const best = (doc: string): number => {
    let min = Infinity;
    for (let run = 0; run < 5; run++) {
      const start = process.hrtime.bigint();
      heal(doc, 4);
      min = Math.min(min, Number(process.hrtime.bigint() - start));
    }
    return min;
  };
  for (const make of [shapes['an array of objects']!, shapes['one long string member']!]) {
    const small = make(1 << 14);
    const large = make(1 << 17);
    best(small); // warm up
    const ratio = best(large) / best(small);
    // Linear is about 8; quadratic would be 64. The bound leaves room for a busy machine.
    t.ok(ratio < 32, `8x the text: ${ratio.toFixed(1)}x the time`);
  }
});

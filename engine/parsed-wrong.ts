// Valid JSON that JSON.parse reads wrong, found by one walk over the parsed value:
// - A number past a double's range parses to Infinity, which no JSON can carry (the repair path
//   reports it: replaced_nan). Every number of the value is looked at: a search of the text for the
//   signs of such a number (an exponent of three digits, a long run of digits) cost more than the
//   walk. Measured on 1.2 MB of small integers, 2.8 MB of records with text and 3.1 MB of floats:
//   the exponent's pattern over the text (no match) 1.0, 2.3 and 2.7 ms, the walk 0.6, 1.1 and 0.5
//   ms; and in bench/engine's valid document hex in a UUID (`9e186e3c`) matches the pattern, so its
//   value was walked after the search anyway.
// - `\b` `\f` before a letter (LaTeX's `\beta`, `\frac` written with one backslash): a raw
//   backslash, not a control character (scan-string.ts). Only text with such an escape has its
//   strings walked.
// Measured on bench/engine's valid 1.5 MB document (~6-10 ms in JSON.parse): the walk 0.5 ms, the
// backslashes 0.2-0.27 ms.

const CONTROL_BEFORE_LETTER = /[\b\f][A-Za-z]/;

/** Whether JSON.parse's `value` of `text` misreads it: a number turned Infinity, or a raw backslash read as a control character. */
export function parsedWrong(text: string, value: unknown): boolean {
  return holdsMisread(value, false) || (escapeBeforeLetter(text) && holdsMisread(value, true));
}

/**
 * The text holds a `\b` or `\f` escape before an ASCII letter. One native search per backslash, not
 * a loop over every character: measured on the valid 1.5 MB document (4,000 backslashes), 0.27 ms,
 * where a search for each of `\b` and `\f` over the whole text took 0.47 ms.
 */
function escapeBeforeLetter(text: string): boolean {
  for (let k = text.indexOf('\\'); k >= 0; k = text.indexOf('\\', k + 2)) {
    const e = text.charCodeAt(k + 1);
    if (e !== 0x62 && e !== 0x66) continue; // b f
    const c = text.charCodeAt(k + 2) | 0x20;
    if (c >= 0x61 && c <= 0x7a) return true; // a-z A-Z
  }
  return false;
}

/**
 * Whether a scalar of a parsed value is misread: a number that is Infinity, or with `strings` a
 * string (a member's name too) with a backspace or form feed before a letter. Explicit stack, no
 * recursion; only containers go on it, so a document of many scalars allocates little. A number is
 * asked for first: an array of 300,000 small integers took 1.3 ms with the object test first, 0.56
 * ms this way. The tests are written in, not a callback: a call per scalar took 1.0 ms on the valid
 * 1.5 MB document, this walk 0.5-0.6 ms.
 */
function holdsMisread(root: unknown, strings: boolean): boolean {
  if (root === null || typeof root !== 'object') return misread(root, strings);
  const stack: object[] = [root];
  while (stack.length > 0) {
    const container = stack.pop()!;
    if (Array.isArray(container)) {
      for (let k = 0; k < container.length; k++) {
        const v: unknown = container[k];
        if (typeof v === 'number') {
          if (!strings && v - v !== 0) return true; // Infinity - Infinity is NaN
        } else if (typeof v === 'object') {
          if (v !== null) stack.push(v);
        } else if (strings && misread(v, true)) return true;
      }
    } else {
      for (const k in container) {
        if (strings && misread(k, true)) return true;
        const v: unknown = (container as Record<string, unknown>)[k];
        if (typeof v === 'number') {
          if (!strings && v - v !== 0) return true;
        } else if (typeof v === 'object') {
          if (v !== null) stack.push(v);
        } else if (strings && misread(v, true)) return true;
      }
    }
  }
  return false;
}

/** What JSON.parse read wrong, in one scalar: Infinity, or with `strings` a string with a backspace or form feed before a letter. */
function misread(v: unknown, strings: boolean): boolean {
  return strings ? typeof v === 'string' && CONTROL_BEFORE_LETTER.test(v) : typeof v === 'number' && v - v !== 0;
}

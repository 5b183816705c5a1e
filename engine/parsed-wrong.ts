// Valid JSON that JSON.parse reads wrong, found without walking every parsed value:
// - A number past a double's range parses to Infinity, which no JSON can carry (the repair path
//   reports it: replaced_nan). Such a number has an exponent of three digits or more (with a
//   mantissa of up to 17 digits, `4185575733472519e+298`, a smaller bound would miss some), or at
//   least LONG_RUN digits before its point (an exponent of two digits adds at most 99: a 400-digit
//   integer was taken as it is, and read as null at high).
//   Hex text (`9e186e3c` in a UUID) matches the exponent's pattern too, and the value is walked
//   then: telling a number token from hex was tried, and a full pass of the pattern over a document
//   cost what the walk does (~0.7 ms a megabyte).
// - `\b` `\f` before a letter (LaTeX's `\beta`, `\frac` written with one backslash): a raw
//   backslash, not a control character (scan-string.ts). Only text with such an escape is walked.
// Measured on bench/engine's valid 1.5 MB document (~10 ms in JSON.parse): the walk for Infinity
// 0.6 ms, the exponent's pattern over the whole text 1.3 ms, the probe for long runs 0.1 ms, the backslashes 0.27 ms.

import { isDigit } from './scanner/char-codes.js';

const EXPONENT_OVER = /\d[eE]\+?\d{3}/;
// A run of digits is looked for by probing (longRun), not by `\d{210}`: that search retries a
// shorter run at each of its digits.
const LONG_RUN = 210;
const CONTROL_BEFORE_LETTER = /[\b\f][A-Za-z]/;

/** Whether JSON.parse's `value` of `text` misreads it: a number turned Infinity, or a raw backslash read as a control character. */
export function parsedWrong(text: string, value: unknown): boolean {
  if (mayOverflow(text) && holdsMisread(value, false)) return true;
  return escapeBeforeLetter(text) && holdsMisread(value, true);
}

/** The text shows a number that may lie past a double's range. */
function mayOverflow(text: string): boolean {
  return EXPONENT_OVER.test(text) || longRun(text);
}

/**
 * An integer part of LONG_RUN digits or more. Such a run covers one of the characters at every
 * PROBE-th offset (PROBE < LONG_RUN), so only those are looked at, and the run around a digit found
 * there is measured: each character is read a bounded number of times, and a document whose probes
 * mostly land on other characters costs a few hundredths of its length.
 */
function longRun(text: string): boolean {
  const PROBE = LONG_RUN - 10;
  let measuredTo = 0;
  for (let p = PROBE - 1; p < text.length; p += PROBE) {
    if (p < measuredTo || !isDigit(text.charCodeAt(p))) continue;
    let from = p;
    while (from > 0 && isDigit(text.charCodeAt(from - 1))) from--;
    let to = p + 1;
    while (isDigit(text.charCodeAt(to))) to++;
    measuredTo = to;
    if (to - from >= LONG_RUN && startsInteger(text, from) && endsNumber(text, to)) return true;
  }
  return false;
}

/** Whether the run of digits from `from` is a number's integer part: a `-`, a blank, a delimiter or the start before it. */
function startsInteger(text: string, from: number): boolean {
  let k = from;
  if (k > 0 && text.charCodeAt(k - 1) === 0x2d) k--; // -
  return k === 0 || !isWordCode(text.charCodeAt(k - 1));
}

/** Whether the run of digits ending at `end` ends a number: a point, an exponent, or no letter or `_` after it. */
function endsNumber(text: string, end: number): boolean {
  const c = text.charCodeAt(end);
  return c === 0x2e || c === 0x65 || c === 0x45 || !isWordCode(c); // . e E
}

/** A character that continues a word or a number: a letter, a digit, `_`, `.`, `+` or `-`. */
function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x5f || c === 0x2e || c === 0x2b || c === 0x2d; // 0-9 A-Z a-z _ . + -
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
 * What JSON.parse read wrong, in one scalar: Infinity (a number past a double's range), or with
 * `strings` a string with a backspace or form feed before a letter.
 */
function misread(v: unknown, strings: boolean): boolean {
  return strings ? typeof v === 'string' && CONTROL_BEFORE_LETTER.test(v) : typeof v === 'number' && v - v !== 0; // Infinity - Infinity is NaN
}

/**
 * Whether a scalar of a parsed value (with `strings`, a member's name too) is misread. Explicit
 * stack, no recursion; only containers go on it, so a document of many scalars allocates little.
 * The test is a plain function, not a callback: a callback's call per scalar took 1.0 ms on the
 * valid 1.5 MB document, this walk 0.6-0.7 ms.
 */
function holdsMisread(root: unknown, strings: boolean): boolean {
  if (root === null || typeof root !== 'object') return misread(root, strings);
  const stack: object[] = [root];
  while (stack.length > 0) {
    const container = stack.pop()!;
    if (Array.isArray(container)) {
      for (let k = 0; k < container.length; k++) {
        const v: unknown = container[k];
        if (v !== null && typeof v === 'object') stack.push(v);
        else if (misread(v, strings)) return true;
      }
    } else {
      for (const k in container) {
        if (strings && misread(k, true)) return true;
        const v: unknown = (container as Record<string, unknown>)[k];
        if (v !== null && typeof v === 'object') stack.push(v);
        else if (misread(v, strings)) return true;
      }
    }
  }
  return false;
}

// The fast lane: plain JSON inside a container — JSON whitespace, brackets, commas and colons,
// strings without escapes or control characters, well-formed numbers, true/false/null — read in one
// tight loop, with the repairs models need most often whose reading is certain: a bare identifier
// before `:` as a name, a single-quoted string without escapes, True/False/None, a trailing comma,
// a comma missing before a quoted name or value (or a `{` in an array) after a blank, comments.
// At the first token it is not sure of (anything else to repair, an escape, a token that reaches
// the end of the window) it stops at that token's start, and the general scanner decides, as it
// would have from the start. Most of a model's reply, even a broken one, is plain JSON.
import { tickDeadline } from '../deadline.js';
import { hex4At, isAsciiLetter, isJsonWhitespace } from './char-codes.js';
import { KIND } from './repair-log.js';
import { proseRunsToQuote } from './scan-string.js';
import { AFTER_VALUE, COLON, type Frame, KEY, SET_NONE, VALUE } from './phases.js';
import { namedFirstMember } from './python-set.js';
import { noteBareName } from './scan-word.js';
import type { Scanner } from './scanner.js';

export function fastLane(s: Scanner): void {
  const text = s.text;
  const len = text.length;
  const stack = s.stack;
  const codes = s.codeUnits();
  let i = s.i;
  // The innermost container, read again only where open() or close() changes it.
  let top = stack[stack.length - 1];
  while (top !== undefined) {
    tickDeadline(); // a caller's time limit (engine/deadline.ts): one long lane is most of a reply
    let c = codes[i]!; // 0 past the end (code-units.ts): every comparison below fails
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = codes[++i]!; // whitespace
    if (i >= len) break;
    if (c === 0x2f) { // /
      // repair: `//` and `/* */` comments are removed (as Scanner.skipTrivia, which one that does not
      // end in the window is left to)
      const next = codes[i + 1];
      const end = next === 0x2f ? text.indexOf('\n', i + 2) : next === 0x2a ? text.indexOf('*/', i + 2) : -1; // / *
      if (end < 0) break;
      s.recordKind(KIND.removed_comments, i);
      i = next === 0x2f ? end + 1 : end + 2;
      continue;
    }
    const phase = s.phase;
    if (phase === VALUE) {
      if (c === 0x22 || c === 0x27) { // " '
        const end = escapedStringEnd(codes, text, i + 1, c);
        if (end < 0 || !stringEndsAt(s, top, codes, end + 1, c)) break;
        // repair: single-quoted strings become double-quoted (`\'` in one is a quote)
        if (c === 0x27) s.recordKind(KIND.converted_single_quotes, i);
        s.emitInto(top, escapeCount === 0 ? text.slice(i + 1, end) : decodeEscapes(text, i + 1, end));
        s.lastWasString = true;
        i = end + 1;
      } else if (c === 0x7b || c === 0x5b) { // { [
        s.open(c === 0x5b, i);
        if (s.tooDeep) return;
        i = s.i;
        top = stack[stack.length - 1]!;
      } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) { // digit -
        const n = readNumber(codes, text, i);
        const end = numberEnd;
        if (end < 0 || !(valueEndsAt(codes, end) || quoteAfterBlank(codes, end))) break;
        if (n === Infinity || n === -Infinity) break;
        s.emitInto(top, n);
        i = end;
      } else if (c === 0x74 && codes[i + 1] === 0x72 && codes[i + 2] === 0x75 && codes[i + 3] === 0x65 && (valueEndsAt(codes, i + 4) || quoteAfterBlank(codes, i + 4))) { // true
        s.emitInto(top, true);
        i += 4;
      } else if (c === 0x66 && codes[i + 1] === 0x61 && codes[i + 2] === 0x6c && codes[i + 3] === 0x73 && codes[i + 4] === 0x65 && (valueEndsAt(codes, i + 5) || quoteAfterBlank(codes, i + 5))) { // false
        s.emitInto(top, false);
        i += 5;
      } else if (c === 0x6e && codes[i + 1] === 0x75 && codes[i + 2] === 0x6c && codes[i + 3] === 0x6c && (valueEndsAt(codes, i + 4) || quoteAfterBlank(codes, i + 4))) { // null
        s.emitInto(top, null);
        i += 4;
      } else if (c === 0x54 || c === 0x46 || c === 0x4e) { // T F N
        const word = c === 0x54 ? 'True' : c === 0x46 ? 'False' : 'None';
        if (!text.startsWith(word, i) || !(valueEndsAt(codes, i + word.length) || quoteAfterBlank(codes, i + word.length))) break;
        // repair: Python literals become JSON literals
        s.recordKind(KIND.replaced_python_literal, i);
        s.emitInto(top, c === 0x54 ? true : c === 0x46 ? false : null);
        i += word.length;
      } else if (c === 0x5d && top.isArray) { // ] of an empty array, or after a trailing comma (close() reports it)
        s.close(undefined, i);
        i++;
        top = stack[stack.length - 1];
      } else break;
    } else if (phase === AFTER_VALUE) {
      if (c === 0x2c) { // ,
        s.phase = top.isArray ? VALUE : KEY;
        s.afterComma = true;
        s.commaPos = s.base + i;
        s.lastWasString = false;
        i++;
      } else if ((c === 0x7d && !top.isArray) || (c === 0x5d && top.isArray)) { // } ]
        s.close(undefined, i);
        i++;
        top = stack[stack.length - 1];
      } else if ((c === 0x22 || c === 0x27 || (c === 0x7b && top.isArray)) && isJsonWhitespace(codes[i - 1]!)) { // " ' {
        // repair: a value follows a value with no comma between (`"a": 1⏎"b": 2`); as
        // structure.ts afterValue, which a quote or an array's `{` after a blank reaches unchanged
        s.recordKind(KIND.inserted_missing_comma, i);
        s.phase = top.isArray ? VALUE : KEY;
        s.lastWasString = false;
      } else break;
    } else if (phase === KEY) {
      // A name in one of three spellings, then one path for all: each helper has one call site, so
      // V8 inlines it once (this function is at its inlining budget; three sites crowded out the
      // string and number readers).
      let from: number;
      let end: number;
      if (c === 0x22) { // "
        from = i + 1;
        end = plainStringEnd(codes, from);
      } else if (c === 0x27) { // '
        from = i + 1;
        end = plainSingleQuotedEnd(codes, from);
      } else if (isIdentifierStart(c)) { // a bare name: `{name: 1}`
        from = i;
        end = i + 1;
        while (isIdentifierPart(codes[end]!)) end++;
      } else if (c === 0x7d) { // } of an empty object, or after a trailing comma (close() reports it)
        s.close(undefined, i);
        i++;
        top = stack[stack.length - 1];
        continue;
      } else break;
      if (end < 0) break;
      const j = colonAt(codes, from === i ? end : end + 1);
      if (j < 0) break; // : must follow the name
      const name = memoName(s, top, text, from, end);
      if (c === 0x27) {
        // repair: single-quoted strings become double-quoted
        s.recordKind(KIND.converted_single_quotes, i);
      } else if (c !== 0x22) {
        // repair: an unquoted member name is quoted
        s.recordKind(KIND.quoted_unquoted_keys, i);
        noteBareName(s, name);
      }
      named(s, top, name, i);
      i = j + 1;
    } else if (phase === COLON && c === 0x3a) { // :
      s.phase = VALUE;
      if (top.set !== SET_NONE) namedFirstMember(s, top); // the `{` opened an object, not a Python set
      i++;
    } else break;
  }
  s.i = i;
}

/** A member's name, read with its colon after it (at window index i): its value comes next. */
function named(s: Scanner, top: Frame, key: string, i: number): void {
  top.key = key;
  top.keyPos = s.base + i;
  s.afterComma = false;
  s.phase = VALUE;
  if (top.set !== SET_NONE) namedFirstMember(s, top); // the `{` opened an object, not a Python set
}

/**
 * The name text[from, end) as the key memo holds it when the sibling object before had the same
 * name here: an internalized string, so no slice is made and the property store skips V8's lookup.
 */
function memoName(s: Scanner, top: Frame, text: string, from: number, end: number): string {
  // Once a name missed, the object is of another shape than the memo's: its later names are sliced.
  const memo = top.memoHits === top.members ? s.keyMemo[s.stack.length] : undefined;
  const known = memo === undefined ? undefined : memo[top.members];
  if (known !== undefined && known.length === end - from && text.startsWith(known, from)) {
    top.memoHits++;
    return known;
  }
  return text.slice(from, end);
}

/** Index of the first code unit from j that is not JSON whitespace (the sentinel at the end at most). */
function blankEnd(codes: Uint16Array, j: number): number {
  let d = codes[j]!;
  while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = codes[++j]!; // space LF CR tab
  return j;
}

/** Index of the `:` after a name ending at j (after whitespace), else -1. */
function colonAt(codes: Uint16Array, j: number): number {
  const k = blankEnd(codes, j);
  return codes[k] === 0x3a ? k : -1; // :
}

function isIdentifierStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24; // a-z A-Z _ $
}

function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || (c >= 0x30 && c <= 0x39); // or 0-9
}

/** Index of the closing `'` of a single-quoted string with no escape or control character from `from`, else -1. */
function plainSingleQuotedEnd(codes: Uint16Array, from: number): number {
  let j = from;
  let d = codes[j]!;
  while (d !== 0x27 && d !== 0x5c && d >= 0x20) d = codes[++j]!; // ' \ control (a sentinel at the end)
  return d === 0x27 ? j : -1;
}

/** Index of the closing quote of a string with no escape or control character from `from`, else -1. */
function plainStringEnd(codes: Uint16Array, from: number): number {
  let j = from;
  let d = codes[j]!;
  while (d !== 0x22 && d !== 0x5c && d >= 0x20) d = codes[++j]!; // " \ control (a sentinel at the end)
  return d === 0x22 ? j : -1;
}

/**
 * Window indexes of the backslashes escapedStringEnd passed (the first escapeCount), for
 * decodeEscapes. Reused without truncation: setting an array's length is a runtime call (0.5 µs a
 * reply when made per string).
 */
const escapes: number[] = [];
let escapeCount = 0;
const ESCAPES_KEPT = 1024;

/**
 * Index of the closing `quote` (`"` or `'`) of a string whose only backslashes start JSON's own
 * escapes (`\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`, `\u` and four hex digits, and `\'` in a
 * single-quoted string) and which holds no control character, else -1. Such a string reads exactly
 * as JSON.parse (or scan-string.ts, for `'`) reads it; one with another backslash (`\d`, `C:\Users`,
 * where its `\n`s may be raw too) or a raw newline is left to scan-string.ts.
 */
function escapedStringEnd(codes: Uint16Array, text: string, from: number, quote: number): number {
  escapeCount = 0;
  let j = from;
  let d = codes[j]!;
  for (;;) {
    while (d !== quote && d !== 0x5c && d >= 0x20) d = codes[++j]!; // the quote, \ or a control character (a sentinel at the end)
    if (d !== 0x5c) return d === quote ? j : -1;
    const width = escapeWidth(text, j, quote);
    if (width === 0) return -1;
    escapes[escapeCount++] = j;
    j += width;
    d = codes[j]!;
  }
}

/** Length of the JSON escape at the backslash text[j] (or `\'` in a single-quoted string), or 0 when it starts none. */
function escapeWidth(text: string, j: number, quote: number): number {
  switch (text.charCodeAt(j + 1)) {
    case 0x27: // '
      return quote === 0x27 ? 2 : 0;
    case 0x22: case 0x5c: case 0x2f: // " \ /
    case 0x6e: case 0x72: case 0x74: // n r t
      return 2;
    case 0x62: case 0x66: // b f — before a letter (`\frac`, `\beta`) a raw backslash: scan-string.ts
      return isAsciiLetter(text.charCodeAt(j + 2)) ? 0 : 2;
    case 0x75: // u
      return hex4At(text, j + 2) >= 0 ? 6 : 0;
    default:
      return 0;
  }
}

/** The text of text[from, end) with the escapes escapedStringEnd found decoded: runs between them are copied as slices. */
function decodeEscapes(text: string, from: number, end: number): string {
  let out = '';
  let run = from;
  for (let k = 0; k < escapeCount; k++) {
    const at = escapes[k]!;
    const e = text.charCodeAt(at + 1);
    let decoded: string;
    switch (e) {
      case 0x62: decoded = '\b'; break; // b
      case 0x66: decoded = '\f'; break; // f
      case 0x6e: decoded = '\n'; break; // n
      case 0x72: decoded = '\r'; break; // r
      case 0x74: decoded = '\t'; break; // t
      case 0x75: // u
        decoded = String.fromCharCode(hex4At(text, at + 2));
        break;
      default: decoded = String.fromCharCode(e); // " \ /
    }
    out += text.slice(run, at) + decoded;
    run = at + (e === 0x75 ? 6 : 2);
  }
  // A string of a million escapes is not kept alive in this array until the next one.
  if (escapeCount > ESCAPES_KEPT) escapes.length = 0;
  return out + text.slice(run, end);
}

/** Exact powers of ten: a double holds each of 10^0 … 10^22 without rounding. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Where the number readNumber read ends, or -1 when it was not a JSON number. */
let numberEnd = -1;

/**
 * Reads a JSON number at i (grammar-exact, no leading zeros) and sets numberEnd. Up to 15 digits
 * and 22 decimals without an exponent, digits / 10^decimals is the correctly rounded value (both
 * are exact doubles and the one division rounds once: Clinger's fast path), so the number is
 * built as it is read; anything longer is sliced and converted.
 */
function readNumber(codes: Uint16Array, text: string, i: number): number {
  let j = i;
  let d = codes[j]!;
  const negative = d === 0x2d; // -
  if (negative) d = codes[++j]!;
  let digits = 0;
  let mantissa = 0;
  if (d === 0x30) d = codes[++j]!; // 0
  else if (d >= 0x31 && d <= 0x39) {
    do {
      mantissa = mantissa * 10 + (d - 0x30);
      digits++;
      d = codes[++j]!;
    } while (d >= 0x30 && d <= 0x39);
  } else {
    numberEnd = -1;
    return 0;
  }
  // An integer ends here; a fraction or an exponent is read apart, so that this part stays small
  // enough for V8 to inline into the lane (its inlining budget is shared by every helper there).
  if (d === 0x2e || d === 0x65 || d === 0x45) return readNumberRest(codes, text, i, j, mantissa, digits, negative); // . e E
  numberEnd = j;
  if (digits > 15) return +text.slice(i, j);
  return negative ? -mantissa : mantissa;
}

/** readNumber() past the integer part (at j, a `.`, `e` or `E`): the fraction and the exponent. */
function readNumberRest(codes: Uint16Array, text: string, i: number, j: number, mantissa: number, digits: number, negative: boolean): number {
  let d = codes[j]!;
  let decimals = 0;
  if (d === 0x2e) { // .
    d = codes[++j]!;
    if (!(d >= 0x30 && d <= 0x39)) {
      numberEnd = -1;
      return 0;
    }
    do {
      mantissa = mantissa * 10 + (d - 0x30);
      digits++;
      decimals++;
      d = codes[++j]!;
    } while (d >= 0x30 && d <= 0x39);
  }
  let exact = digits <= 15 && decimals <= 22;
  if (d === 0x65 || d === 0x45) { // e E
    exact = false;
    d = codes[++j]!;
    if (d === 0x2b || d === 0x2d) d = codes[++j]!; // + -
    if (!(d >= 0x30 && d <= 0x39)) {
      numberEnd = -1;
      return 0;
    }
    do d = codes[++j]!; while (d >= 0x30 && d <= 0x39);
  }
  numberEnd = j;
  if (!exact) return +text.slice(i, j);
  const value = decimals === 0 ? mantissa : mantissa / POW10[decimals]!;
  return negative ? -value : value;
}

/**
 * A string value whose closing quote is at j - 1 is certainly complete: as valueEndsAt, except that
 * in an object a `,` that prose runs on from (`"She said "yes", then left."`) leaves the quote's
 * meaning to the slow path (scan-string.ts quoteInsideValue). A `,` followed by a quote or a name
 * and `:` does not: the fast lane goes on.
 */
function stringEndsAt(s: Scanner, top: Frame, codes: Uint16Array, j: number, quote: number): boolean {
  const k = blankEnd(codes, j);
  const d = codes[k];
  if (d === 0x7d || d === 0x5d) return true; // } ]
  // a quote after a blank: the next name or value, its comma missing (scan-string.ts endsString ends
  // the string there too; only two quotes side by side are left to it)
  if ((d === 0x22 || d === 0x27) && k > j) return true; // " '
  return d === 0x2c && ((top.isArray && s.policy.stringItems !== true) || proseRunsToQuote(s.text, k + 1, quote, s.final) === 0); // ,
}

/**
 * A number or literal ending at j is complete when, after at least one blank, a quote follows (the
 * next name or value, its comma missing): scan-word.ts ends the word there too, and no unit or
 * operator starts with a quote.
 */
function quoteAfterBlank(codes: Uint16Array, j: number): boolean {
  if (!isJsonWhitespace(codes[j]!)) return false;
  const d = codes[blankEnd(codes, j)];
  return d === 0x22 || d === 0x27; // " '
}

/** A value ending at j is certainly complete: a comma or closer follows, possibly after whitespace. */
function valueEndsAt(codes: Uint16Array, j: number): boolean {
  const d = codes[blankEnd(codes, j)];
  return d === 0x2c || d === 0x7d || d === 0x5d; // , } ]
}

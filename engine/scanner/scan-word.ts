// Unquoted tokens: numbers (with their malformed and truncated forms), literals (JSON, Python,
// NaN/Infinity, undefined), and bare words taken as strings — keys or values.
import { endsBareValue, endsWord, isAsciiLetter, isDigit, isJsonWhitespace, isWordChar, skipBlanks } from './char-codes.js';
import { AFTER_VALUE, COLON, HOLD_BARE, HOLD_BLOCK_QUOTE, HOLD_BLOCK_TICK, HOLD_KEY, HOLD_WORD, ROOT_START } from './phases.js';
import { startString } from './scan-string.js';
import type { Scanner } from './scanner.js';

const NOT_NUMBER = 0;
const VALID = 1;
const NORMALIZE = 2; // `.5`, `-.5`, `5.`
const TRUNCATED_EXPONENT = 3; // `2e`, `2e-`
const LONE_MINUS = 4; // `-`

/**
 * Letters glued to a quote where a name or value starts. Python's string prefixes read as Python
 * reads them: `u'…'` is the string (high); `b'…'` (bytes), `r'…'` (raw: its backslashes are not
 * escapes, which this reading decodes) and `br`/`rb` are the string too, medium. Where a value
 * starts, one other letter glued to a quoted string (`h"that"`) is a stray character, dropped
 * (medium), and the string read; an opening quote is never taken for an unbalanced one. 1: a
 * string was started; 0: not a prefix; -1: more input is needed.
 */
function prefixedString(s: Scanner, isKey: boolean): number {
  const text = s.text;
  const len = text.length;
  const i = s.i;
  let j = i;
  while (j < len && j - i < 3 && isAsciiLetter(text.charCodeAt(j))) j++;
  if (j + 1 >= len) return s.final || j - i >= 3 ? 0 : -1; // the quote and the character after it are needed
  const q = text.charCodeAt(j);
  if ((q !== 0x22 && q !== 0x27) || j - i > 2) return 0; // " '
  const after = text.charCodeAt(j + 1);
  if (after === 0x3a) return 0; // : — a stray quote before a name's colon: `{a":1}`
  const prefix = text.slice(i, j).toLowerCase();
  const python = prefix === 'u' || prefix === 'b' || prefix === 'r' || prefix === 'br' || prefix === 'rb';
  // a stray quote closing a bare word (`[a",b"]`, `x",`); `u''` is Python's empty string
  if ((!python && after === q) || after === 0x2c || after === 0x7d || after === 0x5d) return 0; // , } ]
  if (prefix === 'u') {
    // repair: Python's `u'…'` is the string
    s.record('replaced_python_literal', i);
  } else if (python) {
    // repair: Python's bytes and raw strings are the string; its escapes read as JSON's: medium
    s.log.doubt('replaced_python_literal', s.at(i), 'medium');
  } else if (!isKey && j - i === 1) {
    // repair: a stray letter glued to a quoted value (`h"that"`) is dropped
    s.record('removed_invalid_character', i);
  } else return 0;
  startString(s, q, isKey, j);
  return 1;
}

/** Classifies text[start, end) against JSON's number grammar and the near misses models produce. */
function numberForm(text: string, start: number, end: number): number {
  let j = start;
  if (text.charCodeAt(j) === 0x2d) j++; // -
  const intStart = j;
  while (j < end && isDigitAt(text, j)) j++;
  const intDigits = j - intStart;
  if (intDigits > 1 && text.charCodeAt(intStart) === 0x30) return NOT_NUMBER; // 007: an identifier, keep it text
  let fracDigits = -1;
  if (j < end && text.charCodeAt(j) === 0x2e) { // .
    j++;
    const fracStart = j;
    while (j < end && isDigitAt(text, j)) j++;
    fracDigits = j - fracStart;
  }
  if (intDigits === 0 && fracDigits <= 0) return j === end && fracDigits < 0 && intStart === end && end > start ? LONE_MINUS : NOT_NUMBER;
  let truncatedExponent = false;
  if (j < end && (text.charCodeAt(j) | 0x20) === 0x65) { // e E
    j++;
    if (j < end && (text.charCodeAt(j) === 0x2b || text.charCodeAt(j) === 0x2d)) j++; // + -
    const expStart = j;
    while (j < end && isDigitAt(text, j)) j++;
    truncatedExponent = j === expStart;
  }
  if (j !== end) return NOT_NUMBER;
  if (truncatedExponent) return TRUNCATED_EXPONENT;
  return intDigits === 0 || fracDigits === 0 ? NORMALIZE : VALID;
}

function isDigitAt(text: string, j: number): boolean {
  const c = text.charCodeAt(j);
  return c >= 0x30 && c <= 0x39;
}

const UNIT_MAX = 12;
const NOT_UNIT = /^(?:true|false|null|none|nan|inf|infinity|undefined)$/i;

/**
 * After a number and blanks at i: a unit (`kg`, `cm`, `km/h`, `%`) that ends the value — letters,
 * `/` or `%`, at most UNIT_MAX, then `,` `}` `]` a line end or the end of the input. 1 yes, 0 no
 * (a literal, `[1 true]`, is a value missing its comma; `5 b: 2` a member), -1 more input is needed.
 */
function unitAfter(text: string, i: number, final: boolean): number {
  const len = text.length;
  const k = skipBlanks(text, i);
  if (k >= len) return final ? 0 : -1;
  const first = text.charCodeAt(k);
  if (!isAsciiLetter(first) && first !== 0x25) return 0; // %
  let m = k + 1;
  for (; m < len && m - k <= UNIT_MAX; m++) {
    const c = text.charCodeAt(m);
    if (!isAsciiLetter(c) && c !== 0x2f && c !== 0x25) break; // / %
  }
  if (m - k > UNIT_MAX) return 0;
  const n = skipBlanks(text, m);
  if (n >= len) {
    if (!final) return -1;
  } else if (!endsBareValue(text.charCodeAt(n))) return 0;
  return NOT_UNIT.test(text.slice(k, m)) ? 0 : 1;
}

/**
 * After a number and blanks at i: an arithmetic operator and an operand (`* 10`, `/ 2`, `+ x`).
 * `+` and `-` count only with a blank after them too: `[1 -2]` is two numbers missing their comma.
 */
function operatorAfter(text: string, i: number): boolean {
  const k = skipBlanks(text, i);
  const op = text.charCodeAt(k);
  const next = text.charCodeAt(k + 1);
  if (op === 0x2b || op === 0x2d) { // + -
    if (next !== 0x20 && next !== 0x09) return false; // space tab
  } else if (op === 0x2f) { // /
    if (next === 0x2f || next === 0x2a) return false; // a comment: // /*
  } else if (op !== 0x2a && op !== 0x25) return false; // * %
  const m = skipBlanks(text, k + 1);
  const c = text.charCodeAt(m);
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x28 || c === 0x2e; // letter digit ( .
}

function isDigitsOnly(text: string, start: number, end: number): boolean {
  for (let j = start; j < end; j++) if (!isDigitAt(text, j)) return false;
  return true;
}

/**
 * The wrappers unwrapped inside a value: constructors whose one argument is the value (the MongoDB
 * shell's and JavaScript's). docs/repairs.md lists them; any other call is kept as text.
 */
const WRAPPERS = new Set(['ObjectId', 'ISODate', 'Date', 'NumberLong', 'NumberInt', 'NumberDecimal', 'Decimal128', 'UUID']);
/** The longest wrapper's name, and the most blanks read between `new` and it. */
const WRAPPER_MAX = 13;
const NEW_GAP_MAX = 8;
/** Python's set constructors: around one container (`frozenset({1, 2})`, `set([1, 2])`) they are its items. */
const SET_CALLS = new Set(['set', 'frozenset']);

function opensContainer(c: number): boolean {
  return c === 0x7b || c === 0x5b || c === 0x28; // { [ (
}
const CALL_MAX = 1000;
const CALL_UNDECIDED = -2;
/** Whether the call callEnd read last had a `,` between its parentheses (more than one argument). */
let callHasComma = false;

/**
 * The index of the `)` closing the call whose `(` is at `open` (strings and nested brackets
 * skipped), -1 when there is none within CALL_MAX characters or before the end of the input, and
 * CALL_UNDECIDED when the window ends first. Sets callHasComma.
 */
function callEnd(text: string, open: number, final: boolean): number {
  callHasComma = false;
  let depth = 0;
  let quote = 0;
  const end = Math.min(text.length, open + CALL_MAX);
  for (let j = open; j < end; j++) {
    const c = text.charCodeAt(j);
    if (quote !== 0) {
      if (c === 0x5c) j++; // \
      else if (c === quote) quote = 0;
      continue;
    }
    switch (c) {
      case 0x22: case 0x27: quote = c; break; // " '
      case 0x28: case 0x5b: case 0x7b: depth++; break; // ( [ {
      case 0x5d: case 0x7d: depth--; break; // ] }
      case 0x29: if (--depth === 0) return j; break; // )
      case 0x2c: if (depth === 1) callHasComma = true; break; // ,
      case 0x0a: return -1; // LF: a call spans no lines
    }
  }
  return end === text.length && !final ? CALL_UNDECIDED : -1;
}

const REGEX_MAX = 1000;

/**
 * A JavaScript regular expression literal at `start` (`/^[a-z]+$/i`): a `/` that starts no comment,
 * its body on one line (a `/` inside `[…]` or after `\` does not end it), the closing `/` and its
 * flags, then `,` `}` `]` or the line's end. The index after it; 0 when there is none; -1 when more
 * input is needed (at most REGEX_MAX characters are looked at).
 */
function regexLiteralEnd(text: string, start: number, final: boolean): number {
  const len = text.length;
  const first = text.charCodeAt(start + 1);
  if (start + 1 >= len) return final ? 0 : -1;
  if (first === 0x2f || first === 0x2a || first === 0x20 || first === 0x0a) return 0; // / * space LF
  const stop = Math.min(len, start + REGEX_MAX);
  let inClass = false;
  for (let j = start + 1; j < stop; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x0a || c === 0x0d) return 0; // LF CR
    if (c === 0x5c) j++; // \
    else if (c === 0x5b) inClass = true; // [
    else if (c === 0x5d) inClass = false; // ]
    else if (c === 0x2f && !inClass) { // /
      let k = j + 1;
      while (k < len && isAsciiLetter(text.charCodeAt(k))) k++;
      const after = skipBlanks(text, k);
      if (after >= len) return final ? k : -1;
      const d = text.charCodeAt(after);
      return d === 0x2c || d === 0x7d || d === 0x5d || d === 0x0a || d === 0x0d ? k : 0; // , } ] LF CR
    }
  }
  return stop === len && !final && len - start < REGEX_MAX ? -1 : 0;
}

/** Where an unquoted value from i ends: the next `,` `}` `]` or line end, blanks before it left out. */
function bareValueEnd(text: string, i: number): number {
  while (i < text.length && !endsBareValue(text.charCodeAt(i))) i++;
  while (isJsonWhitespace(text.charCodeAt(i - 1))) i--;
  return i;
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true], ['false', false], ['null', null],
  ['True', true], ['False', false], ['None', null],
  ['NaN', null], ['Infinity', null], ['undefined', null],
];

/** A value word at s.i. False when the window ends before the word does. */
export function scanValueWord(s: Scanner): boolean {
  const text = s.text;
  const len = text.length;
  const start = s.i;
  if (isAsciiLetter(text.charCodeAt(start))) {
    const prefixed = prefixedString(s, false);
    if (prefixed !== 0) return prefixed > 0;
  } else if (text.charCodeAt(start) === 0x2f && s.stack.length > 0) { // /
    const end = regexLiteralEnd(text, start, s.final);
    if (end < 0) return false;
    if (end > 0) {
      // repair: a JavaScript regular expression (`/^[a-z]+$/i`) is kept as its text, a string —
      // JSON has no such value, and the reading is a guess: medium
      s.log.doubt('quoted_bare_string', s.at(start), 'medium');
      s.i = end;
      s.emit(text.slice(start, end));
      return true;
    }
  }
  let i = start;
  for (;;) {
    while (i < len && !endsWord(text.charCodeAt(i))) i++;
    // `1/3`, `a/b`: a slash inside a word is text; only `//` and `/*` start comments
    if (i + 1 < len && i > start && text.charCodeAt(i) === 0x2f && text.charCodeAt(i + 1) !== 0x2f && text.charCodeAt(i + 1) !== 0x2a) i++;
    else break;
  }
  if (i >= len && !s.final) {
    s.heldKind = HOLD_WORD;
    return false;
  }
  const atEnd = i >= len;
  if (i > start) {
    const form = numberForm(text, start, i);
    // The input ends inside a number in a container (`{"price": 12`, `[1.5, 2.`): its digits may
    // go on past the cut. A root number alone (`42`) is a whole answer.
    if (atEnd && form !== NOT_NUMBER && s.stack.length > 0) {
      s.warnTruncated(s.at(start));
      // Members written with no braces at all (`"a": 1,\n"b": 30`) end where the reply ends.
      if (!s.log.has('inserted_missing_opening_bracket')) s.cutInValue = true;
    }
    if (form === VALID && !atEnd && text.charCodeAt(i) === 0x3a && s.stack.length > 0) { // :
      // repair: `"time": 10:30`, `"ratio": 16:9` — digits, a colon and digits are a clock time or a
      // ratio, kept as text (bareValue), not a number and a stray colon
      if (i + 1 >= len && !s.final) return false;
      if (isDigitAt(text, i + 1) && isDigitsOnly(text, start, i)) return bareValue(s, start);
    }
    if (form === VALID && !atEnd && s.stack.length > 0 && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) { // space tab
      const unit = unitAfter(text, i, s.final);
      if (unit < 0) return false;
      // repair: `"weight": 5 kg` — a number and its unit are one value, kept as text (bareValue), as
      // `180cm` is, not a number and a member name missing its colon
      if (unit > 0) return bareValue(s, start);
      if (operatorAfter(text, i)) {
        // repair: `"total": 2 * 10` — an expression is kept whole, as its text (not computed, and
        // never cut to its first number): low confidence
        const end = bareValueEnd(text, i);
        if (end >= len && !s.final) return false;
        s.log.doubt('quoted_bare_string', s.at(start), 'low');
        s.i = end;
        s.emit(text.slice(start, end));
        return true;
      }
    }
    if (form === VALID) {
      const n = Number(text.slice(start, i));
      if (n === Infinity || n === -Infinity) {
        // repair: a number beyond double range (`1e999`) has no JSON value; like Infinity it becomes null
        s.record('replaced_nan', start);
        s.warnNan(start);
        s.i = i;
        s.emit(null);
        return true;
      }
      s.i = i;
      s.emit(n);
      return true;
    }
    if (form === NORMALIZE || form === TRUNCATED_EXPONENT) {
      const word = text.slice(start, i);
      const cut = form === TRUNCATED_EXPONENT || (atEnd && word.charCodeAt(word.length - 1) === 0x2e); // .
      // repair: `12.` or `2e-` cut at the end is completed; `.5` / `5.` mid-text are normalized
      s.record(cut ? 'completed_truncated_number' : 'normalized_decimal', start);
      s.i = i;
      s.emit(form === TRUNCATED_EXPONENT ? Number(word.slice(0, word.search(/[eE]/))) : Number(word));
      return true;
    }
    if (form === LONE_MINUS) {
      // repair: a sign with no digits (a number cut after its sign) has no value to keep; its member
      // or element is dropped
      const top = s.stack[s.stack.length - 1];
      const signed = atEnd ? 0 : signedAfterBlank(s, text, i);
      if (signed < 0) return false;
      if (signed > 0) return true;
      if (!atEnd) {
        s.record('removed_invalid_character', start);
        if (top?.isArray === false) {
          s.log.record('removed_member_without_value', top.keyPos);
          top.key = undefined;
          s.phase = AFTER_VALUE;
        }
      } else if (top !== undefined) {
        // cut after its sign: part of a value is gone, and what it was is a guess (medium)
        s.log.doubt('removed_truncated_member', top.isArray ? s.at(start) : top.keyPos, 'medium');
      }
      s.i = i;
      return true;
    }
    const word = text.slice(start, i);
    if (SET_CALLS.has(word) && !atEnd && text.charCodeAt(i) === 0x28) { // (
      const end = emptySetEnd(text, i, s.final);
      if (end < 0) return false;
      if (end > 0) {
        // repair: Python's empty set `set()` (`frozenset()`) is the empty array — a reading chosen, as for `{1, 2}`
        s.record('converted_set_to_array', start);
        s.i = end;
        s.emit([]);
        return true;
      }
    }
    if (!atEnd && text.charCodeAt(i) === 0x28 && /^[A-Za-z_$][\w$.]*$/.test(word)) { // (
      const close = callEnd(text, i, s.final);
      if (close === CALL_UNDECIDED) return false;
      const setCall = SET_CALLS.has(word) && close > 0 && !callHasComma && opensContainer(text.charCodeAt(skipBlanks(text, i + 1)));
      if (s.stack.length > 0 && !setCall && !(WRAPPERS.has(word) && !callHasComma)) {
        // repair: a call that is no documented wrapper (`SUM(A1:A3)`, `print("hi")`, `foo(1, 2)`)
        // is kept as its text, a string: what it stands for is anyone's guess, so low confidence
        const end = close > 0 ? close + 1 : bareValueEnd(text, i);
        s.log.doubt('quoted_bare_string', s.at(start), 'low');
        s.i = end;
        s.emit(text.slice(start, end).trim());
        return true;
      }
      if (setCall) {
        // repair: Python's set of a container (`frozenset({1, 2})`, `set([1, 2])`, a repr's
        // spelling) is its items, an array — a reading chosen, as for `{1, 2}`: medium
        s.record('converted_set_to_array', start);
      } else {
        // repair: a constructor call around a value (`ObjectId("1")`, `NumberLong(2)`), or a root
        // callback, is unwrapped
        s.record('removed_function_wrapper', start);
      }
      s.calls++;
      s.i = i + 1;
      return true;
    }
    if (word === 'new' && !atEnd && s.stack.length > 0) {
      // JavaScript's `new Date("2024-01-15")`: the keyword goes, the wrapper after it is unwrapped
      // as `Date("2024-01-15")` is
      // (a few blanks and a wrapper's name at most are looked at: a stream rereads no more per push)
      const name = skipBlanks(text, i);
      let k = name;
      while (k < len && k - name <= WRAPPER_MAX && isWordChar(text.charCodeAt(k))) k++;
      if (k >= len && !s.final && name - i <= NEW_GAP_MAX) return false;
      if (name - i <= NEW_GAP_MAX && k > name && k > i && text.charCodeAt(k) === 0x28 && WRAPPERS.has(text.slice(name, k))) { // (
        // with an argument: `new NumberInt()` has no value to unwrap and stays text
        const arg = skipBlanks(text, k + 1);
        if (arg >= len && !s.final && arg - k <= NEW_GAP_MAX) return false;
        if (arg < len && text.charCodeAt(arg) !== 0x29) { // )
          s.i = name;
          return true;
        }
      }
    }
    if (word === 'true' || word === 'false' || word === 'null') {
      s.i = i;
      s.emit(word === 'true' ? true : word === 'false' ? false : null);
      return true;
    }
    if (literal(s, word, start, atEnd)) {
      s.i = i;
      return true;
    }
    const spelled = numberLiteral(word);
    if (spelled !== null) {
      // repair: `0xFF`, `1_000_000`, `123n` — a number in a spelling JavaScript, JSON5 and Python share
      // and JSON lacks becomes that number
      s.record('normalized_decimal', start);
      s.i = i;
      s.emit(spelled);
      return true;
    }
  }
  if (s.stack.length === 0) {
    // Not a value a root can be: this is prose, and the JSON (if any) starts later.
    s.phase = ROOT_START;
    s.prose = true;
    return true;
  }
  return bareValue(s, start);
}

/**
 * `- Infinity`, `- 5`: after a lone `-` and the blanks at i, the number it signs. 1 when it was
 * read (emitted), 0 when none follows, -1 when more input is needed.
 */
function signedAfterBlank(s: Scanner, text: string, i: number): number {
  const len = text.length;
  const k = skipBlanks(text, i);
  if (k === i) return 0;
  let m = k;
  while (m < len && !endsWord(text.charCodeAt(m))) m++;
  if (m >= len && !s.final) return -1;
  const word = text.slice(k, m);
  const infinite = word === 'Infinity';
  if (!infinite && numberForm(text, k, m) !== VALID) return 0;
  // repair: a blank between a sign and its number is dropped
  s.record('normalized_whitespace', i);
  if (infinite) {
    // repair: -Infinity is not JSON; it becomes null, with a warning
    s.record('replaced_nan', k);
    s.warnNan(k);
  }
  s.i = m;
  s.emit(infinite ? null : -Number(word));
  return 1;
}

function literal(s: Scanner, word: string, start: number, atEnd: boolean): boolean {
  switch (word) {
    case 'True': case 'False': case 'None':
      // repair: Python literals become JSON literals
      s.record('replaced_python_literal', start);
      s.emit(word === 'True' ? true : word === 'False' ? false : null);
      return true;
    case 'NaN': case 'Infinity': case '-Infinity':
      // repair: NaN and Infinity are not JSON; they become null, with a warning
      s.record('replaced_nan', start);
      s.warnNan(start);
      s.emit(null);
      return true;
    case 'undefined':
      // repair: JavaScript's undefined becomes null
      s.record('replaced_undefined', start);
      s.emit(null);
      return true;
  }
  const lower = word.length <= 9 ? word.toLowerCase() : '';
  if (lower === 'nan' || lower === 'inf' || lower === '-inf' || lower === 'infinity' || lower === '-infinity') {
    // repair: Python's float repr (`nan`, `inf`, `-inf`) and other spellings are NaN and Infinity too
    s.record('replaced_nan', start);
    s.warnNan(start);
    s.emit(null);
    return true;
  }
  if (lower === 'true' || lower === 'false' || lower === 'null' || lower === 'none') {
    // repair: other spellings of the literals (`TRUE`, `Null`, `NONE`: SQL and YAML habits) too
    s.record('replaced_python_literal', start);
    s.emit(lower === 'true' ? true : lower === 'false' ? false : null);
    return true;
  }
  if (!atEnd) return false;
  for (let k = 0; k < LITERALS.length; k++) {
    const [name, value] = LITERALS[k]!;
    if (name.startsWith(word)) {
      // repair: a literal cut at the end (`tru`, `nul`, `Fals`) is completed: only one literal starts
      // so, but the reply was cut there, so the TRUNCATED_OUTPUT warning keeps it from `high`
      s.record('completed_truncated_literal', start);
      s.warnTruncated(s.at(start));
      s.cutInValue = true;
      s.emit(value);
      return true;
    }
  }
  return false;
}

/** An unquoted value taken as a string: up to the next `,` `}` `]` or line end, trimmed. */
function bareValue(s: Scanner, start: number): boolean {
  const text = s.text;
  const len = text.length;
  let i = start;
  for (; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c) { // ,
      const group = currencyGroupAt(text, start, i, s.final);
      if (group < 0) return false;
      if (group > 0) continue; // `$1,234.56`: a thousands separator inside the amount
      break;
    }
    if (endsBareValue(c)) break;
    if (c === 0x22 && i > start && isJsonWhitespace(text.charCodeAt(i - 1))) break; // ` "`: the next member's name
  }
  if (i >= len && !s.final) {
    s.heldKind = HOLD_BARE;
    return false;
  }
  let end = i;
  while (end > start && isJsonWhitespace(text.charCodeAt(end - 1))) end--;
  if (end - start > 1 && text.charCodeAt(end - 1) === 0x22) end--; // `foo"`: the opening quote was missing
  if (end === start) {
    // repair: a stray character where a value should be (`(`, `;`, `:`) is dropped
    s.record('removed_invalid_character', start);
    s.i = start + 1;
    return true;
  }
  // repair: an unquoted value (`{"status": active}`) becomes a string — a guess, so medium confidence
  s.record('quoted_bare_string', start);
  s.i = i;
  s.emit(text.slice(start, end));
  return true;
}

/**
 * A bare amount that starts with a currency sign (`$1,234.56`, `€12,500`): the `,` at i between a
 * digit and exactly three digits (no `:` after them: `$1,234: x` would be a name) separates
 * thousands, so the amount goes on. 1 yes, 0 no (the value ends at the comma), -1 more input is needed.
 */
function currencyGroupAt(text: string, start: number, i: number, final: boolean): number {
  const sign = text.charCodeAt(start);
  // $ £ ¥ € ₹
  if (sign !== 0x24 && sign !== 0xa3 && sign !== 0xa5 && sign !== 0x20ac && sign !== 0x20b9) return 0;
  if (!isDigitAt(text, i - 1)) return 0;
  if (i + 4 >= text.length && !final) return -1;
  if (!isDigitAt(text, i + 1) || !isDigitAt(text, i + 2) || !isDigitAt(text, i + 3)) return 0;
  const after = text.charCodeAt(i + 4); // NaN at the end of the input
  return isDigitAt(text, i + 4) || after === 0x3a ? 0 : 1; // :
}

/**
 * Digits right after a number and its comma in an object, with no colon after them (no member's
 * name): the number goes on. Three (and a fraction) are its next digit group, a thousands
 * separator (`{"total": 1,234.56}`); one or two, or four and more, its decimals after a decimal
 * comma, as much of Europe writes them (`"price": 12,50`). Either is a reading chosen: medium.
 */
function numberAfterComma(s: Scanner, text: string, start: number, end: number, stop: number): boolean {
  if (stop < text.length && text.charCodeAt(stop) === 0x3a) return false; // : — it is a name after all
  if (start === 0 || text.charCodeAt(start - 1) !== 0x2c) return false; // , right before the digits (a separator has no space after it)
  const top = s.stack[s.stack.length - 1]!;
  if (top.members === 0) return false;
  const previous = s.lastValue();
  if (typeof previous !== 'number' || !Number.isInteger(previous)) return false;
  const digits = text.slice(start, end);
  if (THOUSANDS_GROUP.test(digits)) {
    if (String(previous).includes('e')) return false;
    // repair: the digit groups are joined into one number — a guess, so medium confidence
    s.record('merged_thousands_separator', start);
    s.replaceLast(Number(String(previous) + digits));
  } else if (!top.isArray && DECIMALS.test(digits) && Number.isSafeInteger(previous) && !Object.is(previous, -0)) {
    // repair: a decimal comma (`12,50`) is the number's point — a reading chosen, medium
    s.log.doubt('normalized_decimal', s.at(start), 'medium');
    s.replaceLast(Number(`${previous}.${digits}`));
  } else return false;
  s.afterComma = false;
  s.phase = AFTER_VALUE;
  s.i = stop;
  return true;
}

const THOUSANDS_GROUP = /^\d{3}(\.\d+)?$/;
const DECIMALS = /^\d{1,2}$|^\d{4,15}$/;

// Hex up to 13 digits and digit groups up to 15 digits: every such number is an exact double.
const HEX_NUMBER = /^(-?)0[xX]([0-9a-fA-F]{1,13})$/;
const BIGINT = /^-?(?:0|[1-9][0-9]{0,15})n$/;
const GROUPED_NUMBER = /^-?[1-9][0-9]*(?:_[0-9]+)+(?:\.[0-9]+)?$/;

/** The value of a hex (`0xFF`) or digit-grouped (`1_000_000`) number word, else null. */
function numberLiteral(word: string): number | null {
  // JavaScript's BigInt `123n`: the number, when a double holds it exactly (a larger one stays text)
  if (BIGINT.test(word)) {
    const n = Number(word.slice(0, -1));
    return Number.isSafeInteger(n) ? n : null;
  }
  const hex = HEX_NUMBER.exec(word);
  if (hex !== null) return (hex[1] === '-' ? -1 : 1) * parseInt(hex[2]!, 16);
  if (!GROUPED_NUMBER.test(word)) return null;
  const digits = word.replace(/_/g, '');
  return digits.replace(/[-.]/g, '').length <= 15 ? Number(digits) : null;
}

const SET_ITEM_MAX = 64;
const SET_GAP_MAX = 256;
const TUPLE_ITEM_MAX = 256;
const SET_LITERAL = /^(?:true|false|null|none)$/i;

/**
 * Where a `{`'s first member starts (s.i), a number or a literal (`1`, `-2.5`, `True`, `None`) and
 * then `,` or `}` (blanks between): the first item of a Python set (`{1, 2, 3}`), no member name.
 * A name (`{a, b}`: JavaScript's shorthand) or a colon after it (`{1: "a"}`) is not. Looks at most
 * SET_ITEM_MAX characters of the word and SET_GAP_MAX of blanks after it, so a stream that holds it
 * back reads it again at bounded cost. 1 yes; 0 no; -1 more input is needed.
 */
export function bareSetItem(s: Scanner): number {
  const text = s.text;
  const len = text.length;
  const start = s.i;
  const c = text.charCodeAt(start);
  if (c === 0x28) return tupleSetItem(s); // (
  if (!isDigit(c) && c !== 0x2d && c !== 0x2e && !isAsciiLetter(c)) return 0; // - .
  let i = start;
  while (i < len && i - start < SET_ITEM_MAX && !endsWord(text.charCodeAt(i))) i++;
  if (i - start >= SET_ITEM_MAX) return 0;
  const separated = setSeparatorAfter(s, i);
  if (separated <= 0) return separated;
  const form = numberForm(text, start, i);
  return form === VALID || form === NORMALIZE || SET_LITERAL.test(text.slice(start, i)) ? 1 : 0;
}

/**
 * A tuple as a `{`'s first member (`{(1, 2), (3, 4)}`: a set of tuples, as Python writes one): its
 * `)` and then `,` or `}`. A tuple before a colon (`{(1, 2): "a"}`, a dict with tuple keys) is not a
 * set's item (tupleKeyEnd reads it). 1 yes; 0 no; -1 more input is needed.
 */
function tupleSetItem(s: Scanner): number {
  const close = tupleClose(s);
  return close >= 0 ? setSeparatorAfter(s, close + 1) : close === NEED_MORE ? -1 : 0;
}

const NEED_MORE = -1;
const NOT_A_TUPLE = -2;

/**
 * The `)` of a flat tuple opened at s.i (its quoted items' `)` passed over): its window index;
 * NOT_A_TUPLE when a bracket, a brace or a colon comes first, or none within TUPLE_ITEM_MAX
 * characters (a stream that waits for it reads it again at bounded cost); NEED_MORE when the
 * window ends first.
 */
function tupleClose(s: Scanner): number {
  const text = s.text;
  const end = Math.min(text.length, s.i + TUPLE_ITEM_MAX);
  let quote = 0;
  for (let i = s.i + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 0x5c) i++; // \ — the escaped character is passed over
      else if (c === quote) quote = 0;
      continue;
    }
    switch (c) {
      case 0x22: case 0x27: // " '
        quote = c;
        break;
      case 0x29: // )
        return i;
      case 0x28: case 0x5b: case 0x7b: case 0x3a: case 0x7d: case 0x5d: // ( [ { : } ]
        return NOT_A_TUPLE;
    }
  }
  return end === text.length && !s.final && end - s.i < TUPLE_ITEM_MAX ? NEED_MORE : NOT_A_TUPLE;
}

/**
 * A dict's tuple key at s.i (`{(1, 2): "a"}`): a flat tuple, then `:` (blanks between). JSON has no
 * such name; the tuple's text is the name. The window index just past the `)`; 0 when it is none;
 * -1 when more input is needed.
 */
export function tupleKeyEnd(s: Scanner): number {
  const close = tupleClose(s);
  if (close === NEED_MORE) return -1;
  if (close < 0) return 0;
  const after = charAfterGap(s, close + 1);
  return after < 0 ? -1 : after === 0x3a ? close + 1 : 0; // :
}

/** Whether `,` or `}` follows a set's first item ending at `i` (at most SET_GAP_MAX blanks between): 1 yes; 0 no; -1 more input is needed. */
function setSeparatorAfter(s: Scanner, i: number): number {
  const after = charAfterGap(s, i);
  return after < 0 ? -1 : after === 0x2c || after === 0x7d ? 1 : 0; // , }
}

/**
 * The code unit after at most SET_GAP_MAX blanks from `i` (a blank when there are more, 0 at the
 * end of a final reply), or -1 when more input is needed.
 */
function charAfterGap(s: Scanner, i: number): number {
  const text = s.text;
  let k = i;
  while (k < text.length && k - i < SET_GAP_MAX && isJsonWhitespace(text.charCodeAt(k))) k++;
  if (k >= text.length) return s.final ? 0 : -1;
  return text.charCodeAt(k);
}

/**
 * `set()` at i, after the word `set` (the index of its `(`): Python's empty set, read as `[]`. The
 * index after its `)`; 0 when it is not; -1 when more input is needed.
 */
function emptySetEnd(text: string, i: number, final: boolean): number {
  const k = skipBlanks(text, i + 1);
  if (k >= text.length) return final ? 0 : -1;
  return text.charCodeAt(k) === 0x29 ? k + 1 : 0; // )
}

const NAME_ESCAPE = /\\u([0-9a-fA-F]{4})/g;

/** An unquoted member name at s.i: up to the `:` (or the end of the member), trimmed. */
export function scanKeyWord(s: Scanner): boolean {
  const text = s.text;
  const len = text.length;
  const start = s.i;
  if (isAsciiLetter(text.charCodeAt(start))) {
    const prefixed = prefixedString(s, true);
    if (prefixed !== 0) return prefixed > 0;
  }
  let i = start;
  for (; i < len; i++) {
    if (endsKeyWord(text.charCodeAt(i))) break;
  }
  if (i + 1 >= len && !s.final) { // the character after a closing `"` is needed too
    if (i >= len) s.heldKind = HOLD_KEY;
    return false;
  }
  let end = i;
  while (end > start && isJsonWhitespace(text.charCodeAt(end - 1))) end--;
  if (end === start) {
    s.record('removed_invalid_character', start);
    s.i = start + 1;
    return true;
  }
  if (numberAfterComma(s, text, start, end, i)) return true;
  // repair: an unquoted member name is quoted
  s.record('quoted_unquoted_keys', start);
  if (i < len && text.charCodeAt(i) === 0x22 && text.charCodeAt(i + 1) === 0x3a) i++; // `{a":1}`: a stray quote before the colon
  const top = s.stack[s.stack.length - 1]!;
  const name = text.slice(start, end);
  if (name.includes(' ') || name.includes('\t')) s.report.proseName = true;
  else noteBareName(s, name);
  // `{\u0061b: 1}`: a bare name may spell a character as `\uXXXX` (JSON5, JavaScript): it is decoded
  top.key = name.includes('\\u') ? name.replace(NAME_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : name;
  top.keyPos = s.at(start);
  s.afterComma = false;
  s.phase = COLON;
  s.i = i;
  return true;
}

/**
 * A bare name that is a retraction's one word (`Truncated:`, `INCOMPLETE:`) may be prose
 * (corrections.ts): the report says so. Only names of those lengths are compared, so the fast lane's
 * bare names pay one length test.
 */
export function noteBareName(s: Scanner, name: string): void {
  if (name.length === 9 || name.length === 10) noteRetractionName(s, name); // the fast lane inlines only this test
}

function noteRetractionName(s: Scanner, name: string): void {
  if (RETRACTION_NAME.test(name)) s.report.proseName = true;
}

const RETRACTION_NAME = /^(?:truncated|incomplete)$/i;

/** What ends an unquoted member name. */
function endsKeyWord(c: number): boolean {
  // : , } ] { [ " ' “ ‘ LF CR
  return c === 0x3a || c === 0x2c || c === 0x7d || c === 0x5d || c === 0x7b || c === 0x5b || c === 0x22 || c === 0x27 || c === 0x201c || c === 0x2018 || c === 0x0a || c === 0x0d;
}

/**
 * Whether `piece`, arriving after a token held back as `kind` (phases.ts HOLD_*), holds a character
 * where that token's scan above would stop; `prev` is the code unit just before the piece. Exact, not
 * merely cautious: a piece that cannot stop the scan would only lengthen the token, so the scanner
 * keeps it aside instead of reading the token again (scanner.ts feed).
 */
export function pieceCanEnd(kind: number, prev: number, piece: string): boolean {
  const len = piece.length;
  for (let k = 0; k < len; k++) {
    const c = piece.charCodeAt(k);
    switch (kind) {
      case HOLD_KEY:
        if (endsKeyWord(c)) return true;
        break;
      case HOLD_WORD:
        if (c === 0x2f) { // / — inside a word unless a comment starts (or the piece ends: the next character decides)
          const next = k + 1 < len ? piece.charCodeAt(k + 1) : 0x2f;
          if (next === 0x2f || next === 0x2a) return true; // / *
        } else if (endsWord(c)) return true;
        break;
      case HOLD_BLOCK_QUOTE:
        if (c === 0x22 || c === 0x27) return true; // " '
        break;
      case HOLD_BLOCK_TICK:
        if (c === 0x60) return true; // `
        break;
      default: // HOLD_BARE
        if (endsBareValue(c)) return true;
        if (c === 0x22 && isJsonWhitespace(k > 0 ? piece.charCodeAt(k - 1) : prev)) return true; // ` "`
    }
  }
  return false;
}

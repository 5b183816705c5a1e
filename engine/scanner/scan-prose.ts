// Before the JSON: models open with prose ("Here's the JSON:"), a markdown fence, a <think> block, or
// a JSONP callback. The root value starts at the first `{` or `[` (or after a fence); a scalar root
// (`42`, `"text"`, `tru`) is accepted only when nothing but the end of the input follows it.
import { endsWord, isAsciiLetter, isDigit, isJsonWhitespace, isWordChar, skipBlanks } from './char-codes.js';
import { ROOT_START, THINK, VALUE } from './phases.js';
import { startString } from './scan-string.js';
import type { Scanner } from './scanner.js';

const PROSE_KEEP = 128; // enough of the prose to recognise a JSONP callback name

/** ROOT_START. True when it progressed; false when it needs more input (or the input is done). */
export function scanProse(s: Scanner): boolean {
  if (!s.prose) {
    if (!s.skipTrivia()) return false;
    const text = s.text;
    const i = s.i;
    if (i >= text.length) {
      if (s.final) s.finish();
      return false;
    }
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [ — at the very start always the root: a stream's `[tru` must not wait for its line
        if (s.at(i) < s.policy.proseUntil) break; // a fenced answer comes later
        if (c === 0x5b) {
          const marker = toolMarkerLength(text, i, s.final);
          if (marker < 0) return false;
          if (marker > 0) {
            // repair: a tool-call marker (`[TOOL_CALLS]`) is not data; the JSON after it is
            s.record('stripped_leading_text', i);
            s.i = i + marker;
            return true;
          }
          const label = labelLength(text, i, s.final);
          if (label === LABEL_LINE) {
            // A label that opens a line of prose (`[INFO] Processing request⏎{…}`): that line is
            // prose, the label with it — never a value of its own, so a reply with no JSON after it
            // holds none, and a stream shows nothing of it
            s.report.labelLine = true;
            s.prose = true;
            s.proseHasText = true;
            s.proseStart = s.at(i);
            s.i = text.indexOf(']', i) + 1;
            return skipProse(s);
          }
          if (label < 0) return false;
          if (label > 0) {
            // repair: a bracketed label before the answer (`[x] {…}`, `[TODO] {…}`) is not data; the
            // value after it is the answer — a reading chosen (the label reads as a value of its own): medium
            s.log.doubt('stripped_leading_text', s.at(i), 'medium');
            s.warnLeftOut(s.at(i));
            s.i = i + label;
            return true;
          }
        }
        s.open(c === 0x5b, i);
        return true;
      case 0x22: case 0x27: case 0x201c: case 0x2018: // " ' “ ‘ — a root string
        startString(s, c, false, i);
        return true;
      case 0x60: { // `
        const f = s.fenceAt(i);
        if (f < 0) return false;
        if (f > 0) return s.skipFenceLine(i); // phase stays ROOT_START: the fenced text starts afresh
        break;
      }
      case 0x3c: // <
        return thinkTag(s, i);
      case 0x28: { // ( — a Python tuple as the whole reply (`(1, 2)`, `("a", "b")`)
        const whole = wholeTupleEnd(text, i, s.final);
        if (whole < 0) return false;
        if (whole > 0 && s.roots.length === 0) {
          // repair: a tuple `(1, 2)` is an array
          s.record('replaced_python_literal', i);
          s.open(true, i);
          s.stack[0]!.tuple = true;
          return true;
        }
        break;
      }
      default: {
        if (s.report.thinkAt < 0 && s.roots.length === 0 && !s.fenced && isAsciiLetter(c)) {
          const label = reasoningLabel(s, i);
          if (label < 0) return false;
          if (label > 0) return true;
        }
        const verdict = rootScalar(s, i);
        if (verdict < 0) return false;
        if (verdict > 0) {
          s.phase = VALUE;
          return true;
        }
      }
    }
    s.prose = true;
  }
  return skipProse(s);
}

/** Prose: skip to the first `{`, `[`, fence, <think> or JSONP `(`. */
function skipProse(s: Scanner): boolean {
  const text = s.text;
  const len = text.length;
  let i = s.i;
  const start = i;
  let undecided = false; // a fragment whose line has not arrived yet
  const codes = s.codeUnits();
  for (; i < len; i++) {
    const c = codes[i]!;
    if (c === 0x5b || c === 0x7b) { // [ {
      if (s.at(i) < s.policy.proseUntil) continue; // before the fenced answer
      if (c === 0x5b) {
        const marker = toolMarkerLength(text, i, s.final);
        if (marker < 0) {
          undecided = true;
          break;
        }
        if (marker > 0) { // `Sure.[TOOL_CALLS][…]`, `get_weather[ARGS]{…}`: a marker, prose
          i += marker - 1;
          continue;
        }
        // A subscript (`arr[0]`, `d["key"]`): code in the prose, never the JSON, even when nothing
        // else is. The window's first `[` asks the scanner for the code unit before it.
        const close = subscriptCloser(text, i, i > 0 ? codes[i - 1]! : s.before);
        if (close >= 0 && close < len) {
          i = close;
          continue;
        }
        if (close >= len && !s.final) {
          undecided = true;
          break;
        }
      }
      if (!s.policy.inlineFragmentsAreProse) break;
      const after = inlineFragmentEnd(text, i, s.final);
      if (after > 0) {
        // A fragment that is never the JSON is not read again as one (reply-shape.ts).
        if (!neverJson(text, i, after)) s.report.skippedFragment = true;
        i = after - 1; // `[1]: see`, `{name} below`: prose, not the root
        continue;
      }
      undecided = after < 0;
      if (!undecided && s.roots.length === 0 && s.stack.length === 0) {
        const lineEnd = lineFragmentEnd(text, i);
        if (lineEnd > 0) {
          // repair: (on a reread) a fragment ending a line of prose is prose, not the root
          if (s.policy.lineFragmentsAreProse) {
            i = lineEnd - 1;
            continue;
          }
          s.report.lineFragmentRoot = true;
        }
      }
      break;
    }
    if (c === 0x60 || c === 0x3c) { // ` <
      if (i + TAG_AHEAD > len && !s.final) break; // decide when enough has arrived
      if (c === 0x60 ? s.fenceAt(i) > 0 : thinkTagLength(text, i) > 0) break;
      if (c === 0x3c) {
        const n = reasoningCloserLength(text, i);
        // A lone closing tag (`…</think>{…}`): the prose before it was reasoning, its values drafts.
        if (n > 0) s.reasoningEnd = s.at(i + n);
      }
    }
    if (c === 0x28 && isCallbackName(s, text.slice(start, i))) break; // (
  }
  notePose(s, text, start, i);
  s.i = i;
  if (i >= len) {
    if (s.final) s.finish();
    return false;
  }
  const c = text.charCodeAt(i);
  if ((c === 0x60 || c === 0x3c) && i + TAG_AHEAD > len && !s.final && !(c === 0x60 ? s.fenceAt(i) > 0 : thinkTagLength(text, i) > 0)) {
    return false;
  }
  if (undecided) return false; // decide when the rest of the fragment's line has arrived
  if (c === 0x28) { // ( — JSONP: `callback({...})`
    // repair: a JSONP callback wrapper is removed
    s.record('removed_jsonp_wrapper', i);
    s.jsonp = true;
    s.proseHasText = false;
    s.prose = false;
    s.i = i + 1;
    return true;
  }
  if (s.proseHasText) {
    // repair: prose before the JSON is dropped; when it holds a JSON value of its own (`First:
    // {"a": 1} and second: {"a": 2}`), the answer was chosen among values: medium confidence
    const from = Math.max(0, Math.max(s.proseStart, s.reasoningEnd) - s.base);
    // and so when it holds `key: value` lines (`name: Alice⏎age: 30⏎{…}`): members written before
    // the brace are data, not prose to drop with certainty
    // and so when it opened with a bracketed label (`[INFO] Processing⏎{…}`): the brackets read as
    // an array too, and the answer after them was chosen
    if (s.report.labelLine || holdsJsonValue(text, from, i) || holdsMemberLines(text, from, i)) {
      s.log.doubt('stripped_leading_text', s.proseStart, 'medium');
      s.warnLeftOut(s.proseStart);
    } else s.log.record('stripped_leading_text', s.proseStart);
    s.proseHasText = false;
  }
  s.prose = false;
  if (c === 0x7b || c === 0x5b) {
    s.open(c === 0x5b, i);
    return true;
  }
  if (c === 0x60) return s.skipFenceLine(i);
  return thinkTag(s, i);
}

const TUPLE_AHEAD = 4096;

/**
 * `(` at i opens a tuple that is the whole reply: its first item starts like a value, and its
 * matching `)` (found within TUPLE_AHEAD characters, quotes skipped) ends the reply, its line, or
 * comes before a fence or `;`. `(1) First, …` and `(see below)` are prose. 1: a tuple; 0: prose;
 * -1: more input is needed.
 */
function wholeTupleEnd(text: string, i: number, final: boolean): number {
  let k = i + 1;
  while (k < text.length && isJsonWhitespace(text.charCodeAt(k))) k++;
  if (k >= text.length) return final ? 0 : -1;
  if (!startsTupleItem(text.charCodeAt(k)) && !/^(?:True|False|None)\b/.test(text.slice(k, k + 6))) {
    return k + 6 > text.length && !final && /^[TFN][a-z]*$/.test(text.slice(k)) ? -1 : 0;
  }
  const stop = Math.min(text.length, i + TUPLE_AHEAD);
  let depth = 0;
  let quote = 0;
  for (let j = i; j < stop; j++) {
    const c = text.charCodeAt(j);
    if (quote !== 0) {
      if (c === 0x5c) j++; // \ escapes the next character
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 0x22 || c === 0x27) quote = c; // " '
    else if (c === 0x28 || c === 0x5b || c === 0x7b) depth++; // ( [ {
    else if (c === 0x29 || c === 0x5d || c === 0x7d) { // ) ] }
      if (--depth > 0) continue;
      if (c !== 0x29) return 0;
      const after = skipBlanks(text, j + 1);
      if (after >= text.length) return final ? 1 : -1;
      const next = text.charCodeAt(after);
      return next === 0x0a || next === 0x0d || next === 0x60 || next === 0x3b ? 1 : 0; // LF CR ` ;
    }
  }
  return stop < text.length || final ? 0 : -1;
}

/** What may start a tuple's first item, so `(1, 2)` is a tuple and `(see below)` is prose: a digit, `-`, a quote, an opener, `)`. */
function startsTupleItem(c: number): boolean {
  return isDigit(c) || c === 0x2d || c === 0x22 || c === 0x27 || c === 0x5b || c === 0x7b || c === 0x28 || c === 0x29; // - " ' [ { ( )
}

const TOOL_MARKERS = ['[TOOL_CALLS]', '[ARGS]', '[CALL_ID]'];

/**
 * A tool-call marker at i (Mistral's `[TOOL_CALLS]`, `[ARGS]`): its length; 0 none; -1 when the
 * window ends inside one.
 */
function toolMarkerLength(text: string, i: number, final: boolean): number {
  for (const marker of TOOL_MARKERS) {
    if (text.startsWith(marker, i)) return marker.length;
    if (!final && i + marker.length > text.length && marker.startsWith(text.slice(i))) return -1;
  }
  return 0;
}

const LABEL_MAX = 40;
const LABEL_WORDS_MAX = 4;
const LABEL_GAP_MAX = 80;
/**
 * A date, a time or both in brackets, as log lines open: `2024-01-01`, `12:00:05`, `2024-01-01
 * 12:00:00.123`, `2024-01-01T12:00:00Z`, `2024/01/01 12:00 UTC`, `12:00:05,120 +02:00`.
 */
const TIME_LABEL = /^[ \t]*(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]+\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}:\d{2}(?::\d{2})?)(?:[.,]\d{1,9})?(?:[ ]?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?[ \t]*$/;
/** A JSON or Python literal in brackets (`[true]`, `[None]`) is a value, never a label. */
const LITERAL_LABEL = /^(?:true|false|null|none|nan|infinity|undefined)$/i;

/** labelLength: the label opens a line of prose, which runs on after it. */
const LABEL_LINE = -2;

/**
 * A short label in brackets that opens the reply before its answer — a markdown checkbox (`[ ]`,
 * `[x]`), or one to LABEL_WORDS_MAX bare words or a tag (`[TODO]`, `[Final Answer]`,
 * `[tool:search]`): letters, digits and `_ - . : / #`, starting with a letter, no quote, comma or
 * nested bracket — with `{` or `[` after it on its line or the next. The length up to that
 * bracket; LABEL_LINE when prose follows it on its line (`[INFO] Processing request`, a log line's
 * tag: a letter after blanks); 0 when it is no such label (`[1, 2] {…}`, `["x"] {…}`, `[true] {…}`
 * and `[]` are values, and so is `[x]` with nothing after it); -1 when more input is needed. A
 * stream holds the `[` back while it may still be one: at most a few words and a line break.
 */
function labelLength(text: string, i: number, final: boolean): number {
  const len = text.length;
  let j = skipBlanks(text, i + 1);
  if (j >= len) return final ? 0 : -1;
  const first = text.charCodeAt(j);
  // A label starts with a letter: digits after the reply's first `[` open an array at once (a
  // stream cannot wait on them), so a log line's time there (`[12:00:05] {…}`) reads as a value.
  if (first === 0x5d ? j === i + 1 : !isAsciiLetter(first)) return 0; // ] — `[]` is a value
  let words = 0;
  for (; j < len; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5d) break; // ]
    if (j - i > LABEL_MAX) return 0;
    if (c === 0x20 || c === 0x09) continue; // space tab
    if (!isWordChar(c) && c !== 0x2d && c !== 0x2e && c !== 0x3a && c !== 0x2f && c !== 0x23) return 0; // - . : / #
    const before = text.charCodeAt(j - 1);
    if ((before === 0x20 || before === 0x09 || before === 0x5b) && ++words > LABEL_WORDS_MAX) return 0; // space tab [
  }
  if (j >= len) return final ? 0 : -1;
  if (LITERAL_LABEL.test(text.slice(i + 1, j).trim())) return 0;
  let after = skipBlanks(text, j + 1);
  if (after >= len && !final) return -1;
  if (after < len && isAsciiLetter(text.charCodeAt(after)) && after > j + 1) return LABEL_LINE;
  if (text.charCodeAt(after) === 0x3a) { // :
    // A speaker's tag (`[assistant]: {…}`): its colon goes with it.
    j = after;
    after = skipBlanks(text, j + 1);
    if (after >= len && !final) return -1;
    if (after < len && isAsciiLetter(text.charCodeAt(after))) return LABEL_LINE;
  }
  // Blanks and at most one line break, then the answer's bracket.
  let k = j + 1;
  let breaks = 0;
  for (; k < len; k++) {
    const c = text.charCodeAt(k);
    if (k - j > LABEL_GAP_MAX || (c === 0x0a && ++breaks > 1)) return 0; // LF
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break; // space tab CR LF
  }
  if (k >= len) return final ? 0 : -1;
  const next = text.charCodeAt(k);
  return next === 0x7b || next === 0x5b ? k - i : 0; // { [
}

const FRAGMENT_MAX = 80;
const VALUE_SEARCH_MAX = 4096;

/**
 * Whether text[from, to) — prose dropped around the answer — holds a JSON value of its own: a
 * bracketed run that JSON.parse reads as an object with a member or an array of two or more
 * elements or of a container (`{"a": 2}`, `[1, 2]`; not a citation `[1]`, a placeholder `{name}`
 * or `{}`). Dropping one means the answer was chosen among values (docs/repairs.md, "Several
 * values"). Only the first VALUE_SEARCH_MAX characters are looked at.
 */
export function holdsJsonValue(text: string, from: number, to: number): boolean {
  const end = Math.min(to, text.length, from + VALUE_SEARCH_MAX);
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x7b && c !== 0x5b) continue; // { [
    const close = bracketEnd(text, i, end);
    if (close < 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(i, close + 1));
    } catch {
      continue;
    }
    if (Array.isArray(value) ? value.length > 1 || (value.length === 1 && value[0] !== null && typeof value[0] === 'object') : Object.keys(value as object).length > 0) return true;
    i = close;
  }
  return false;
}

/** A `key: value` line: a name, a colon and one scalar (a number, a literal, a quoted string or one word). */
const MEMBER_LINE = /^[ \t]*(?:[-*][ \t]+)?["']?([A-Za-z_][\w -]{0,40})["']?[ \t]*:[ \t]*(?:(-?\d[\d.eE+-]*|true|false|null|True|False|None|"[^"\n]*"|'[^'\n]*')|[A-Za-z_][\w-]*)[ \t]*,?[ \t]*\r?$/gm;

/**
 * Whether text[from, to) holds `key: value` lines, YAML-like members: one whose value is a number,
 * literal or quoted string, or whose name is one identifier (`name: John`), or two of one word each. Only the first VALUE_SEARCH_MAX characters.
 */
export function holdsMemberLines(text: string, from: number, to: number): boolean {
  const end = Math.min(to, text.length, from + VALUE_SEARCH_MAX);
  if (end - from < 4) return false;
  const span = text.slice(from, end);
  if (!valueAfterColon(span)) return false; // `Here is the JSON:` — no line goes on after its colon
  let words = 0;
  MEMBER_LINE.lastIndex = 0;
  for (let m = MEMBER_LINE.exec(span); m !== null; m = MEMBER_LINE.exec(span)) {
    // a scalar value, or a name that is one identifier (`status: ok`, not `Short answer: yes`)
    if (m[2] !== undefined || !/[ -]/.test(m[1]!.trimEnd()) || ++words >= 2) return true;
  }
  return false;
}

/** Some colon in `span` has text after it on its line (native searches; MEMBER_LINE needs one). */
function valueAfterColon(span: string): boolean {
  for (let k = span.indexOf(':'); k >= 0; k = span.indexOf(':', k + 1)) {
    const c = span.charCodeAt(skipBlanks(span, k + 1));
    if (c === c && c !== 0x0a && c !== 0x0d) return true; // not the end (NaN), LF or CR
  }
  return false;
}

/** The index of the closer that balances the bracket at i (strings skipped), or -1 before `end`. */
function bracketEnd(text: string, i: number, end: number): number {
  let depth = 0;
  let quoted = false;
  for (let j = i; j < end; j++) {
    const c = text.charCodeAt(j);
    if (quoted) {
      if (c === 0x5c) j++; // \
      else if (c === 0x22) quoted = false; // "
    } else if (c === 0x22) quoted = true; // "
    else if (c === 0x7b || c === 0x5b) depth++; // { [
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return j; // } ]
  }
  return -1;
}

/**
 * Around the JSON, a short bracketed fragment that opens and closes on one line and is followed on
 * that line by more text — a citation `[1]: see`, `[2], the`, a placeholder `{name} below`, an
 * example `return {} if none`, `The format is {"a": number}. Here:`, a checkbox `- [x] done`, a
 * markdown link `[docs](…)` — is prose: the index after its closer. 0 when it may be the JSON (it
 * ends its line, spans lines, or is longer than FRAGMENT_MAX, so a stream of minified JSON is never
 * held back for long); -1 when more input is needed. A reply whose only JSON is such a fragment
 * (`Here: {"a": 1} hope this helps`) is read again without the rule (reply-shape.ts rereadWithoutRoot).
 */
export function inlineFragmentEnd(text: string, i: number, final: boolean): number {
  const len = text.length;
  const j = fragmentCloser(text, i);
  if (j === SPANS_LINES) return 0;
  if (j >= len) return final ? 0 : -1;
  let k = skipBlanks(text, j + 1);
  if (k < len && text.charCodeAt(k) === 0x2c) k = skipBlanks(text, k + 1); // , — values one per line (`{},` `{}`)
  if (k >= len) return final ? 0 : -1;
  const c = text.charCodeAt(k);
  // a character class and its quantifier (`[A-Z]{2}`, `[0-9]{1,3}`): a regular expression, prose
  if (k === j + 1 && c === 0x7b && text.charCodeAt(i) === 0x5b && isDigit(text.charCodeAt(k + 1))) return j + 1; // { [
  // bracketed words and then the JSON on the same line (`See [here] {"a": 1}`): words, prose
  if ((c === 0x7b || c === 0x5b) && text.charCodeAt(i) === 0x5b && bracketedWords(text.slice(i, j + 1))) return j + 1; // { [
  // a closing tag follows (`<function=f>{"a": []}</function>`): the tag's content, maybe the JSON
  if (c === 0x3c && text.charCodeAt(k + 1) === 0x2f) return 0; // < /
  // ends its line, or structure follows (`{"a": 2}]`, `[1], [2]`): maybe the JSON; more text: prose
  return c === 0x0a || c === 0x0d || c === 0x5d || c === 0x7d || c === 0x5b || c === 0x7b ? 0 : j + 1;
}

const SPANS_LINES = -1;
/** `[here]`, `[see note 2]`: words in brackets, no quote, comma or colon — prose, not an array. */
const BRACKETED_WORDS = /^\[[A-Za-z][\w .'-]*\]$/;

/** `[here]`, `[see note 2]`, or a log line's time `[12:00:05]`: prose in brackets. */
function bracketedWords(fragment: string): boolean {
  return BRACKETED_WORDS.test(fragment) || (fragment.charCodeAt(0) === 0x5b && TIME_LABEL.test(fragment.slice(1, -1))); // [
}

/**
 * A fragment of prose text[i, end) that is never the JSON, even when the reply holds nothing else:
 * a placeholder (`Use the {name} field`), a task list's box (`- [ ] buy milk`), words or a time in
 * brackets (`the answer is [redacted] for now`) — no rescan reads them as `{}`, `[]`, `["redacted"]`.
 */
function neverJson(text: string, i: number, end: number): boolean {
  return isPlaceholder(text, i, end) || isTaskBox(text, i) || bracketedWords(text.slice(i, end));
}

/**
 * A subscript at text[i] (`arr[0]`, `d["key"]`): a `[` glued to a name (`before`, the code unit
 * before it, a letter, digit or `_`) and closed on its line. The index of its closer; text.length
 * when the text ends first; -1 when it is no subscript.
 */
export function subscriptCloser(text: string, i: number, before: number): number {
  if (!isWordChar(before)) return -1;
  const close = fragmentCloser(text, i);
  return close === SPANS_LINES ? -1 : close;
}

/**
 * The index of the closer of the bracket at i when it closes on its own line within FRAGMENT_MAX
 * characters; SPANS_LINES when it does not; text.length when the text ends first.
 */
function fragmentCloser(text: string, i: number): number {
  const len = text.length;
  let depth = 0;
  let quoted = false;
  let j = i;
  for (; j < len; j++) {
    if (j - i >= FRAGMENT_MAX) return SPANS_LINES;
    const c = text.charCodeAt(j);
    if (c === 0x0a || c === 0x0d) return SPANS_LINES; // \n \r
    if (quoted) {
      if (c === 0x5c) j++; // \
      else if (c === 0x22) quoted = false; // "
      continue;
    }
    if (c === 0x22) quoted = true; // "
    else if (c === 0x5b || c === 0x7b) depth++; // [ {
    else if ((c === 0x5d || c === 0x7d) && --depth === 0) return j; // ] }
  }
  return len;
}

/**
 * A short fragment that ends a line of prose — `See reference [1]`, `- Items: [apple, pear]`,
 * `1. Set "name" to {first, last}` — whose line begins with text: the index after its closer,
 * else 0. The first scan reads it as the root (it may be the answer: `The result: [1, 2]`);
 * reply-shape.ts rereadPastLineFragment reads the reply again with it as prose when a root of the
 * other kind starts a later line, or when it read as JSON only through guesses.
 */
export function lineFragmentEnd(text: string, i: number): number {
  const j = fragmentCloser(text, i);
  if (j === SPANS_LINES || j >= text.length) return 0;
  const k = skipBlanks(text, j + 1);
  if (k < text.length && text.charCodeAt(k) !== 0x0a && text.charCodeAt(k) !== 0x0d) return 0; // more on the line
  let b = i - 1;
  while (b >= 0 && (text.charCodeAt(b) === 0x20 || text.charCodeAt(b) === 0x09)) b--; // space tab
  if (b < 0 || text.charCodeAt(b) === 0x0a || text.charCodeAt(b) === 0x0d) return 0; // the line starts with it
  return j + 1;
}

/**
 * A markdown task list's box at text[i]: `[ ]`, `[x]` or `[X]` and a blank after it (`- [ ] buy
 * milk`, `2. [x] done`, `Press [x] to close`). Decided from what follows it only, so a stream whose
 * window starts after the line's marker decides as the whole reply does.
 */
export function isTaskBox(text: string, i: number): boolean {
  const mark = text.charCodeAt(i + 1);
  const after = text.charCodeAt(i + 3);
  return text.charCodeAt(i) === 0x5b && text.charCodeAt(i + 2) === 0x5d && (mark === 0x20 || (mark | 0x20) === 0x78) && (after === 0x20 || after === 0x09); // [ ] space x X; space tab
}

/** `{name}`, `{ user_id }`: a brace around one identifier, the fragment text[i, end). */
function isPlaceholder(text: string, i: number, end: number): boolean {
  if (text.charCodeAt(i) !== 0x7b) return false; // {
  const a = skipBlanks(text, i + 1);
  let b = end - 1;
  while (b > a && (text.charCodeAt(b - 1) === 0x20 || text.charCodeAt(b - 1) === 0x09)) b--; // space tab
  if (b <= a || !isAsciiLetter(text.charCodeAt(a))) return false;
  for (let k = a; k < b; k++) {
    const c = text.charCodeAt(k);
    if (!isWordChar(c) && c !== 0x2e && c !== 0x2d) return false; // . -
  }
  return true;
}

const NOTE_MAX = 160;

/**
 * After the JSON, a bracketed note alone on its line — `[Note: values are estimates]`, `[End of
 * output]`, `{Note: values are estimates}` — is prose: the index after its closer. Only text that
 * reads as words does: it starts with a letter, holds no quote, no bracket and no line break, and
 * has a phrase (a space between two words) or, in `[…]`, a label's colon; in `{…}` at most one
 * colon, with at least three words after it. Values one after another (`{"b": 2}`, `[1]`,
 * `[true]`, `[apple, pear]`, `{a: 1}`, `{name: John Smith}`) are not notes: 0. -1 when more input
 * is needed to tell.
 */
export function proseNoteEnd(text: string, i: number, final: boolean): number {
  const len = text.length;
  const isArray = text.charCodeAt(i) === 0x5b; // [
  const closer = isArray ? 0x5d : 0x7d; // ] }
  let j = skipBlanks(text, i + 1);
  if (j >= len) return final ? 0 : -1;
  if (!isAsciiLetter(text.charCodeAt(j))) return 0; // `[1]`, `{"b"`, `{}`: a value
  let colons = 0;
  let phrases = 0;
  let phrasesAfterColon = 0;
  for (; j < len; j++) {
    if (j - i > NOTE_MAX) return 0;
    const c = text.charCodeAt(j);
    if (c === closer) break;
    switch (c) {
      // " ` [ ] { } LF CR “ ” — quoted text, nesting or more lines: structure, not a note
      case 0x22: case 0x60: case 0x5b: case 0x5d: case 0x7b: case 0x7d: case 0x0a: case 0x0d: case 0x201c: case 0x201d:
        return 0;
      case 0x27: case 0x2019: // ' ’ — an apostrophe inside a word (`don't`) only
        if (j + 1 >= len) return final ? 0 : -1;
        if (!isWordChar(text.charCodeAt(j - 1)) || !isWordChar(text.charCodeAt(j + 1))) return 0;
        break;
      case 0x3a: // :
        colons++;
        phrasesAfterColon = 0;
        break;
      case 0x20: // space: word, space, word is a phrase
        if (j + 1 >= len) return final ? 0 : -1;
        if (isWordChar(text.charCodeAt(j - 1)) && isWordChar(text.charCodeAt(j + 1))) {
          phrases++;
          phrasesAfterColon++;
        }
        break;
    }
  }
  if (j >= len) return final ? 0 : -1;
  const k = skipBlanks(text, j + 1);
  if (k >= len) {
    if (!final) return -1;
  } else if (text.charCodeAt(k) !== 0x0a && text.charCodeAt(k) !== 0x0d) return 0; // LF CR: alone on its line
  const prose = isArray ? colons > 0 || phrases > 0 : colons === 0 ? phrases > 0 : colons === 1 && phrasesAfterColon >= 2;
  return prose ? j + 1 : 0;
}

function notePose(s: Scanner, text: string, start: number, end: number): void {
  for (let k = start; k < end; k++) {
    if (!isJsonWhitespace(text.charCodeAt(k))) {
      if (!s.proseHasText) {
        s.proseHasText = true;
        s.proseStart = s.at(k);
      }
      break;
    }
  }
  if (s.proseTail.length < PROSE_KEEP) s.proseTail += text.slice(start, Math.min(end, start + PROSE_KEEP));
}

/** `callback_123(`: the prose so far is one identifier (dots allowed), so `(` opens a JSONP call. */
function isCallbackName(s: Scanner, sinceStart: string): boolean {
  const name = (s.proseTail + sinceStart).trim();
  return name.length > 0 && name.length < PROSE_KEEP && /^[A-Za-z_$][\w$.]*$/.test(name);
}

/** The names of the tags models wrap their reasoning in (`<think>`, `<reasoning>`, …), lower case. */
const REASONING_TAG = /^<(think|thinking|thought|thoughts|reasoning|reflection|scratchpad)>/i;
/** Enough characters to tell a reasoning tag (the longest, harmony's analysis channel, is 30). */
export const TAG_AHEAD = 31;
/** A "Thinking:" preamble that opens the reply: reasoning up to its first blank line. */
const REASONING_LABEL = /^(?:thinking|thoughts?|reasoning|internal reasoning|chain of thought)[ \t]*:/i;
const LABEL_AHEAD = 24;

/** OpenAI's harmony format: the analysis channel is the model's reasoning, up to its `<|end|>`. */
const ANALYSIS_CHANNEL = '<|channel|>analysis<|message|>';
const CHANNEL_END = '<|end|>';

/** The length of an opening reasoning tag at i (0: none). */
function thinkTagLength(text: string, i: number): number {
  if (text.charCodeAt(i + 1) === 0x2f) return 0; // /
  if (text.startsWith(ANALYSIS_CHANNEL, i)) return ANALYSIS_CHANNEL.length;
  const m = REASONING_TAG.exec(text.slice(i, i + TAG_AHEAD));
  return m === null ? 0 : m[0].length;
}

/** What ends the reasoning block opened by the n characters at i. */
function closerOf(text: string, i: number, n: number): string {
  return text.startsWith(ANALYSIS_CHANNEL, i) ? CHANNEL_END : '</' + text.slice(i + 1, i + n - 1).toLowerCase();
}

/** The length of a closing reasoning tag at i (`</think>`, `</reasoning>`; 0: none). */
export function reasoningCloserLength(text: string, i: number): number {
  if (text.charCodeAt(i + 1) !== 0x2f) return 0; // /
  const m = REASONING_TAG.exec('<' + text.slice(i + 2, i + TAG_AHEAD));
  return m === null ? 0 : m[0].length + 1;
}

function thinkTag(s: Scanner, i: number): boolean {
  const text = s.text;
  if (i + TAG_AHEAD > text.length && !s.final) return false; // decide when enough has arrived
  const n = thinkTagLength(text, i);
  if (n === 0) {
    s.prose = true;
    return true;
  }
  // repair: a reasoning block (<think>…</think>, <reasoning>…</reasoning>) before the JSON is
  // dropped: a draft inside it is never the answer
  s.record('stripped_leading_text', i);
  s.report.thinkAt = s.at(i);
  s.report.thinkBodyAt = s.at(i + n);
  s.thinkCloser = closerOf(text, i, n);
  s.i = i + n;
  s.phase = THINK;
  return true;
}

/**
 * At the reply's first word: a "Thinking:" (`Reasoning:`, `Thoughts:`) preamble is a reasoning
 * block that ends at its first blank line. 1: it is (phase THINK); 0: it is not; -1: more input.
 */
export function reasoningLabel(s: Scanner, i: number): number {
  const text = s.text;
  const head = text.slice(i, i + LABEL_AHEAD);
  const m = REASONING_LABEL.exec(head);
  if (m === null) {
    if (s.final || head.length >= LABEL_AHEAD || head.includes(':') || head.includes('\n')) return 0;
    return /^[A-Za-z ]*$/.test(head) ? -1 : 0;
  }
  // repair: a "Thinking:" preamble is reasoning, not the answer: dropped up to its first blank line
  s.record('stripped_leading_text', i);
  s.report.thinkAt = s.at(i);
  s.report.thinkBodyAt = s.at(i + m[0].length);
  s.thinkCloser = BLANK_LINE;
  s.i = i + m[0].length;
  s.phase = THINK;
  return 1;
}

const BLANK_LINE = '\n\n';

/** A line that opens with another label (`Action:`, `Answer:`, `Final answer:`): the reasoning before it is over. */
const NEXT_LABEL = /^[A-Z][A-Za-z ]{0,30}:/;

/**
 * Where a "Thinking:" preamble from `from` ends: after its first blank line, or at the start of a
 * line that opens with another label (ReAct's `Thought: …⏎Action: {…}`); -1 when neither has come.
 */
function blankLineEnd(text: string, from: number, final = true): number {
  for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    let k = nl + 1;
    while (k < text.length && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09 || text.charCodeAt(k) === 0x0d)) k++; // space tab CR
    if (k < text.length && text.charCodeAt(k) === 0x0a) return k + 1; // LF
    if (k >= text.length) return -1;
    const head = text.slice(k, k + 32);
    if (NEXT_LABEL.test(head) && !REASONING_LABEL.test(head)) return k;
    if (!final && k + 32 > text.length && text.indexOf('\n', k) < 0) return -1; // the line's label is not known yet
  }
  return -1;
}

/**
 * The offset after the reasoning the whole reply opens with — a `<think>…</think>` block (any
 * reasoning tag) or a "Thinking:" preamble up to its first blank line — or 0 when it opens with
 * none or the block never closes. Schema alignment (align.ts) takes no candidate from before it.
 */
export function leadingReasoningEnd(text: string): number {
  let i = 0;
  while (i < text.length && isJsonWhitespace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 0x3c) { // <
    const n = thinkTagLength(text, i);
    if (n === 0) return 0;
    const close = indexOfCaseless(text, closerOf(text, i, n), i + n);
    const gt = close < 0 ? -1 : text.indexOf('>', close);
    return gt < 0 ? 0 : gt + 1;
  }
  const m = REASONING_LABEL.exec(text.slice(i, i + LABEL_AHEAD));
  if (m === null) return 0;
  const after = blankLineEnd(text, i + m[0].length);
  return after < 0 ? 0 : after;
}

const CLOSER_SEARCH = new Map<string, RegExp>();

/**
 * `text.indexOf(lower, from)` in any capitalisation (`</THINK>`, `</Think>`): one search whose cost
 * is the distance to the closer, so many blocks cost their length once.
 */
function indexOfCaseless(text: string, lower: string, from: number): number {
  let search = CLOSER_SEARCH.get(lower);
  if (search === undefined) {
    search = new RegExp(lower.replace(/[|]/g, '\\|'), 'gi');
    CLOSER_SEARCH.set(lower, search);
  }
  search.lastIndex = from;
  const m = search.exec(text);
  return m === null ? -1 : m.index;
}

/** THINK: skip to the closing tag (or, after a "Thinking:" label, the blank line). */
export function scanThink(s: Scanner): boolean {
  const text = s.text;
  if (s.thinkCloser === BLANK_LINE) {
    const after = blankLineEnd(text, s.i, s.final);
    if (after < 0) {
      if (s.final) {
        s.report.thinkUnclosed = true;
        s.i = text.length;
        s.finish();
      } else {
        const nl = text.lastIndexOf('\n');
        s.i = Math.max(s.i, nl >= 0 ? nl : text.length); // the blank line may be split across pieces
      }
      return false;
    }
    s.i = after;
    s.phase = ROOT_START;
    s.prose = false;
    return true;
  }
  const close = indexOfCaseless(text, s.thinkCloser, s.i);
  if (close < 0) {
    if (s.final) {
      s.report.thinkUnclosed = true;
      s.i = text.length;
      s.finish();
    } else s.i = Math.max(s.i, text.length - TAG_AHEAD); // a closing tag may be split across pieces
    return false;
  }
  const gt = text.indexOf('>', close);
  if (gt < 0) {
    s.i = close;
    if (s.final) s.finish();
    return false;
  }
  s.i = gt + 1;
  s.phase = ROOT_START;
  s.prose = false;
  return true;
}

/**
 * A root that starts like a number or literal: 1 = a scalar root (only the end, a comma or a fence
 * follow it), 0 = prose, -1 = more input is needed to tell.
 */
function rootScalar(s: Scanner, i: number): number {
  const text = s.text;
  const len = text.length;
  const c = text.charCodeAt(i);
  if (!(isDigit(c) || c === 0x2d || c === 0x2b || c === 0x2e || (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) return 0; // digit - + . letter
  let j = i;
  while (j < len && !endsWord(text.charCodeAt(j))) j++;
  if (j === i + 3 && text.startsWith('set()', i)) { // Python's empty set as the whole reply (scan-word.ts)
    let end = j + 2;
    while (end < len && isJsonWhitespace(text.charCodeAt(end))) end++;
    return end < len ? 0 : s.final ? 1 : -1;
  }
  let k = j;
  while (k < len && isJsonWhitespace(text.charCodeAt(k))) k++;
  if (k >= len && !s.final) return -1;
  if (k < len) {
    const f = text.charCodeAt(k);
    if (f !== 0x2c && f !== 0x60 && f !== 0x3b && !(s.jsonp && f === 0x29)) return 0; // , ` ; )
  }
  const word = text.slice(i, j);
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d*)?$/.test(word) && !/^[-+]?0\d/.test(word)) return 1; // `+42`: its sign is dropped (expectValue)
  if (/^(true|false|null|none|NaN|-?Infinity|undefined)$/i.test(word)) return 1;
  if (j >= len && word.length > 0) {
    // cut at the end: `tru`, `-`
    if (word === '-') return 1;
    for (const name of ['true', 'false', 'null', 'True', 'False', 'None']) if (name.startsWith(word)) return 1;
  }
  return 0;
}

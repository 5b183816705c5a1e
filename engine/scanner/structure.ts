// The grammar between tokens: what each character means given what the scanner expects next.
// Each handler consumes at least one character or changes the phase toward one that will, and
// returns false only when the window ends before it can decide.
import { holdsJsonValue, inlineFragmentEnd, proseNoteEnd, reasoningCloserLength } from './scan-prose.js';
import { isAsciiLetter, isQuote } from './char-codes.js';
import { AFTER_ROOT, AFTER_VALUE, COLON, type Frame, KEY, MAX_DEPTH, SET_NONE, SET_OPEN, SET_QUOTED, SET_READ, TRAILING, VALUE } from './phases.js';
import { namedFirstMember, readAsSet, setToObject } from './python-set.js';
import { blockOpenerAt, NOT_A_BLOCK, scanBlock } from './scan-block.js';
import { quotedFirstItem, startString } from './scan-string.js';
import { bareSetItem, scanKeyWord, scanValueWord, tupleKeyEnd } from './scan-word.js';
import type { Scanner } from './scanner.js';

export function expectValue(s: Scanner, c: number): boolean {
  const i = s.i;
  if (s.concat && !isQuote(c)) {
    // repair: a `+` not followed by a string is dropped
    s.concat = false;
    s.record('removed_invalid_character', i);
    s.phase = s.stack.length === 0 ? AFTER_ROOT : AFTER_VALUE;
    return true;
  }
  switch (c) {
    case 0x7b: // {
      s.open(false, i);
      return true;
    case 0x5b: // [
      s.open(true, i);
      return true;
    case 0x22: case 0x27: { // " ' — `"""…"""` and `'''…'''` are Python's block strings
      const run = blockOpenerAt(s, i, c);
      if (run > 0) return scanBlock(s, i, c, run, false) === true;
      startString(s, c, false, i);
      return true;
    }
    case 0x201c: case 0x201d: case 0x2018: case 0x2019: // ' “ ” ‘ ’
      startString(s, c, false, i);
      return true;
    case 0x2c: { // ,
      const top = s.stack[s.stack.length - 1];
      if (top !== undefined && !top.isArray) {
        // repair: a member with no value (`{"a":,`) is dropped
        s.log.record('removed_member_without_value', top.keyPos);
        top.key = undefined;
        s.phase = KEY;
        s.afterComma = true;
        s.commaPos = s.at(i);
      } else {
        // repair: an empty slot (`[1,,2]`, `[,1]`) is dropped
        s.record('removed_duplicate_comma', i);
      }
      s.i = i + 1;
      return true;
    }
    case 0x7d: // }
    case 0x5d: // ]
      return closeBracket(s, c === 0x5d, i);
    case 0x2e: // .
      if (isEllipsis(s, i)) return skipEllipsis(s, i);
      return scanValueWord(s);
    case 0x60: // `
      return backtick(s, i, false);
    case 0x28: // ( — a Python tuple where a value goes: an array, as Python reads `(1, 2)`
      // repair: a tuple `(1, 2)` is an array
      s.record('replaced_python_literal', i);
      s.open(true, i);
      s.stack[s.stack.length - 1]!.tuple = true;
      return true;
    case 0x29: // )
      if (s.stack[s.stack.length - 1]?.tuple === true) return closeTuple(s, i);
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    case 0x3a: case 0x3b: case 0x2b: // : ; +
      // repair: a character that cannot start a value is dropped
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    default:
      return scanValueWord(s);
  }
}

export function expectKey(s: Scanner, c: number): boolean {
  const i = s.i;
  const first = s.stack[s.stack.length - 1]!;
  if (first.set === SET_OPEN) {
    // `{1, 2}`, `{True, None}`: a number or literal and then `,` or `}` — the `{` opened a Python set
    const item = bareSetItem(s);
    if (item < 0) return false;
    if (item > 0) {
      readAsSet(s, s.at(i));
      s.phase = VALUE;
      return true;
    }
    // Only a quoted name (or a prefixed one, `u'x'`) may still be a set's item: after a stray `:` or `,` (`{:2}`) it is an object.
    if (!isQuote(c) && c !== 0x60 && !isAsciiLetter(c)) first.set = SET_NONE; // `
  }
  if (s.afterComma && c !== 0x5b && c !== 0x7d) { // not [ }
    const item = itemBeforeCloser(s, i);
    if (item < 0) return false;
    if (item > 0 && reopenArray(s, i, false)) return true;
  }
  if (c === 0x28) { // ( — a dict's tuple key (`{(1, 2): "a"}`)
    const end = tupleKeyEnd(s);
    if (end < 0) return false;
    if (end > 0) {
      // repair: a Python tuple as a name has no JSON form; its text is the name — a reading
      // chosen (another would drop the member): medium
      s.log.doubt('quoted_unquoted_keys', s.at(i), 'medium');
      const top = s.stack[s.stack.length - 1]!;
      top.key = s.text.slice(i, end);
      top.keyPos = s.at(i);
      s.afterComma = false;
      s.phase = COLON;
      s.i = end;
      return true;
    }
  }
  switch (c) {
    case 0x7d: // }
    case 0x5d: // ]
      return closeBracket(s, c === 0x5d, i);
    case 0x22: // "
      if (knownKey(s, i)) return true;
      startString(s, c, true, i);
      return true;
    case 0x27: case 0x201c: case 0x201d: case 0x2018: case 0x2019: // ' “ ” ‘ ’
      startString(s, c, true, i);
      return true;
    case 0x2c: // ,
      // repair: a comma with no member before it (`{,"a":1}`, `{"a":1,,"b":2}`) is dropped
      s.record('removed_duplicate_comma', i);
      s.i = i + 1;
      return true;
    case 0x2e: // .
      if (isEllipsis(s, i)) return skipEllipsis(s, i);
      return scanKeyWord(s);
    case 0x60: // `
      return backtick(s, i, true);
    case 0x7b: case 0x5b: { // { [
      if (c === 0x5b && s.afterComma && reopenArray(s, i, true)) return true;
      const parent = s.stack[s.stack.length - 2];
      if (parent?.isArray === true) {
        // `[{"i":1,{"i":2}]`, `[{{]`: the object was never closed; the comma belongs to the array
        const hadComma = s.afterComma;
        s.afterComma = false;
        s.close('closed_object_bracket', i);
        s.phase = VALUE;
        s.afterComma = hadComma;
        return true;
      }
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    }
    case 0x3a: case 0x29: case 0x28: case 0x3b: case 0x2b: // : ) ( ; + (a `(` that opens no tuple key)
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    default:
      return scanKeyWord(s);
  }
}

/** `"name":` where the sibling object before this one had the same name at the same place. */
function knownKey(s: Scanner, i: number): boolean {
  const memo = s.keyMemo[s.stack.length];
  if (memo === undefined) return false;
  const top = s.stack[s.stack.length - 1]!;
  if (top.memoHits !== top.members) return false; // a name missed: another shape than the memo's
  const key = memo[top.members];
  if (key === undefined) return false;
  const text = s.text;
  const end = i + 1 + key.length; // the closing quote
  if (end + 1 >= text.length || text.charCodeAt(end) !== 0x22) return false; // "
  const after = text.charCodeAt(end + 1);
  if (after !== 0x3a && after !== 0x20) return false; // : or space: the name has ended
  if (!text.startsWith(key, i + 1)) return false;
  top.memoHits++;
  quotedFirstItem(s);
  s.strQuoteSeen = false; // a name read whole from the memo: no inner quote
  top.key = key;
  top.keyPos = s.at(i);
  s.afterComma = false;
  s.phase = COLON;
  s.i = end + 1;
  return true;
}

export function expectColon(s: Scanner, c: number): boolean {
  const i = s.i;
  const top = s.stack[s.stack.length - 1]!;
  if (top.set !== SET_NONE) {
    // The `{`'s first name is read: `,` or `}` after a quoted one (`{"x", "y"}`) make it a set's item
    // (not when where that string ends was a guess: `{"key:"value"}` is a broken member, no set)
    if (top.set === SET_QUOTED && (c === 0x2c || c === 0x7d) && !s.strQuoteSeen) return firstSetItem(s, top, c); // , }
    namedFirstMember(s, top);
  }
  switch (c) {
    case 0x3a: // :
      s.i = i + 1;
      s.phase = VALUE;
      return true;
    case 0x2c: { // ,
      // A member name with no value: the member is dropped (close() and this path report it).
      s.log.record('removed_member_without_value', top.keyPos);
      top.key = undefined;
      s.phase = KEY;
      s.afterComma = true;
      s.commaPos = s.at(i);
      s.i = i + 1;
      return true;
    }
    case 0x7d: // }
    case 0x5d: // ]
      return closeBracket(s, c === 0x5d, i);
    case 0x60: // `
      return fence(s, i);
    case 0x3d: { // = — `{"a" = 1}`, Ruby's `{"a" => 1}`: the separator of another language
      if (i + 1 >= s.text.length && !s.final) return false;
      // repair: the `=` (or `=>`) is dropped and the colon put in its place
      s.record('removed_invalid_character', i);
      s.record('inserted_missing_colon', i);
      s.i = s.text.charCodeAt(i + 1) === 0x3e ? i + 2 : i + 1; // >
      s.phase = VALUE;
      return true;
    }
    default:
      // repair: `{"a" 1}` gets its colon; after an empty name (`"" ""`) that reading is a guess
      if (top.key === '') s.log.doubt('inserted_missing_colon', s.at(i), 'medium');
      else s.record('inserted_missing_colon', i);
      s.phase = VALUE;
      return true;
  }
}

/**
 * `{"x", "y"}`, `{'a'}`: the quoted name a `{` began with is followed by `,` or `}` (c) — it is the
 * first item of a Python set, read as an array (python-set.ts).
 */
function firstSetItem(s: Scanner, top: Frame, c: number): boolean {
  const item = top.key!;
  readAsSet(s, top.keyPos);
  s.emitInto(top, item);
  return afterValue(s, c);
}

export function afterValue(s: Scanner, c: number): boolean {
  const i = s.i;
  const top = s.stack[s.stack.length - 1]!;
  switch (c) {
    case 0x2c: // ,
      s.i = i + 1;
      s.phase = top.isArray ? VALUE : KEY;
      s.afterComma = true;
      s.commaPos = s.at(i);
      s.lastWasString = false;
      return true;
    case 0x7d: // }
    case 0x5d: // ]
      return closeBracket(s, c === 0x5d, i);
    case 0x2b: // +
      return concatenation(s, i);
    case 0x60: // `
      return fence(s, i);
    case 0x2e: // .
      if (isEllipsis(s, i)) return skipEllipsis(s, i);
      break;
    case 0x29: // )
      if (top.tuple) return closeTuple(s, i);
      if (s.calls > 0) { // the end of a wrapper, reported with its start
        s.calls--;
        s.i = i + 1;
        return true;
      }
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    case 0x3a: // :
      if (top.set === SET_READ) {
        // `{1, 2: 3}`: a colon after a set's item — the braces held an object, and that item is its next name
        const items = top.container as unknown[];
        setToObject(s, String(items.pop()), s.at(i));
        s.phase = VALUE;
        s.i = i + 1;
        return true;
      }
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    case 0x28: case 0x3b: // ( ;
      s.record('removed_invalid_character', i);
      s.i = i + 1;
      return true;
    case 0x7b: // {
      if (!top.isArray && s.stack.length > 1 && s.stack[s.stack.length - 2]!.isArray) {
        // `[{"i":1{"i":2}]`: the object before the next one was never closed
        s.close('closed_object_bracket', i);
        return true;
      }
      break;
  }
  // repair: a value follows a value with no comma between (`[1 2]`, `{"a":1 "b":2}`); a string
  // that opens right at the closing quote of the one before (`"end""…`) may instead be a quote of
  // that string's text: a reading chosen, medium
  if (isQuote(c) && i > 0 && isQuote(s.text.charCodeAt(i - 1))) s.log.doubt('inserted_missing_comma', s.at(i), 'medium');
  else s.record('inserted_missing_comma', i);
  s.phase = top.isArray ? VALUE : KEY;
  s.lastWasString = false;
  return true;
}

const TAG = /^<\/?[A-Za-z_][\w:.-]{0,62}(?:=[\w:.-]{1,62})?>/; // `</tool_call>`, `<function=name>`

/** `<name>` or `</name>` at i: the index after it; 0 when not a tag; -1 when more input is needed. */
function tagEnd(text: string, i: number, final: boolean): number {
  const gt = text.indexOf('>', i);
  if (gt < 0 || gt - i > 66) return !final && text.length - i <= 66 ? -1 : 0;
  const match = TAG.exec(text.slice(i, gt + 1));
  return match === null ? 0 : gt + 1;
}

export function afterRoot(s: Scanner, c: number): boolean {
  const i = s.i;
  switch (c) {
    case 0x5b: // [
    case 0x7b: { // { — a footnote after the JSON (`[1] Source: …`) is trailing prose, not a second root
      const afterTag = s.afterTag;
      s.afterTag = false;
      // after `,` the next value is a value: `{"a": 1}, {"a": 2}]`; after a tag (`<function=g>{…}</function>`) too
      if (s.rootCommaPos < 0 && !afterTag) {
        const after = inlineFragmentEnd(s.text, i, s.final);
        if (after < 0) return false;
        if (after > 0) break;
        // so is a note alone on its line (`[Note: values are estimates]`), where `{"b": 2}` is a value
        const note = proseNoteEnd(s.text, i, s.final);
        if (note < 0) return false;
        if (note > 0) break;
      }
      s.open(c === 0x5b, i);
      return true;
    }
    case 0x2c: // ,
      if (s.rootCommaPos < 0) s.rootCommaPos = s.at(i);
      s.i = i + 1;
      return true;
    case 0x7d: // }
    case 0x5d: // ]
      // repair: a closing bracket with nothing open is dropped
      s.record('removed_extra_closing_bracket', i);
      s.i = i + 1;
      return true;
    case 0x2b: // +
      if (s.lastWasString) return concatenation(s, i);
      break;
    case 0x22: case 0x27: // " '
      if (reopenRoot(s)) return true;
      break;
    case 0x3c: { // < — `</tool_call>\n<tool_call>`: tags between values, as tool-calling models wrap each call
      const end = tagEnd(s.text, i, s.final);
      if (end < 0) return false;
      if (end === 0) break;
      if (reasoningCloserLength(s.text, i) > 0) {
        // `{"a": 1}</think>{"a": 2}`: what came before the lone closing tag was reasoning
        s.dropReasoning(end);
        s.i = end;
        return true;
      }
      // repair: a markup tag after the JSON is dropped; a value after it is one more value
      s.record('stripped_trailing_text', i);
      s.afterTag = true;
      s.i = end;
      return true;
    }
    case 0x29: case 0x3b: // ) ;
      if (s.jsonp) { // the JSONP wrapper's end, reported with its start
        s.i = i + 1;
        return true;
      }
      break;
    case 0x60: { // `
      const f = s.fenceAt(i);
      if (f < 0) return false;
      if (f > 0) {
        // repair: the closing fence; whatever follows it is the model talking again
        s.record('removed_markdown_fence', i);
        s.i = i + 3;
        s.phase = TRAILING;
        return true;
      }
      break;
    }
  }
  if (s.rootCommaPos >= 0 && s.roots.length === 1 && startsScalar(s.text, i)) {
    const first = s.roots[0];
    if (Array.isArray(first)) {
      const items = itemsThenCloser(s.text, i, s.final);
      if (items < 0) return false;
      if (items > 0) return reopenRootArray(s, i);
    } else if (first === null || typeof first !== 'object') {
      // repair: `1, 2, 3]` — the output began inside an array (a prefilled `[`)
      s.log.record('inserted_missing_opening_bracket', s.base);
      if (s.sink !== null) s.sink.diverge();
      s.roots.length = 0;
      s.open(true, i);
      s.i = i; // open() took the character for a bracket: the next value starts here
      (s.stack[0]!.container as unknown[]).push(first);
      s.rootCommaPos = -1;
      s.afterComma = true;
      s.commaPos = s.base + i;
      return true;
    }
  }
  // repair: text after the JSON is dropped. A value after the root's comma that no `]` ends (`[1,
  // 2], 3`) was likely meant to be part of it: low confidence; a JSON value of its own (`{"a": 1} or {"a":
  // 2}`) means the answer was chosen among values: medium
  const other = s.rootCommaPos >= 0 && startsScalar(s.text, i) ? 'low'
    : holdsJsonValue(s.text, i, s.text.length) || isLoneScalar(s.text, i) ? 'medium' : 'high';
  if (other === 'high') s.record('stripped_trailing_text', i);
  else {
    s.log.doubt('stripped_trailing_text', s.at(i), other);
    s.warnLeftOut(s.at(i));
  }
  s.trailingReported = true;
  s.phase = TRAILING;
  return true;
}

const LONE_SCALAR_MAX = 64;

/**
 * The rest of the text from i is one JSON scalar alone (`[1] 2`, `{"a": 1} true`): a second value,
 * not prose, so dropping it chose the first (medium).
 */
function isLoneScalar(text: string, i: number): boolean {
  if (text.length - i > LONE_SCALAR_MAX || !startsScalar(text, i)) return false;
  try {
    const value: unknown = JSON.parse(text.slice(i));
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
}

const LITERAL_AHEAD = /^(?:true|false|null)(?![A-Za-z0-9_])/;

/** A number, a quoted string or a literal (`true`, `false`, `null`) starts at i. */
function startsScalar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if ((c >= 0x30 && c <= 0x39) || c === 0x22 || c === 0x27) return true; // digit " '
  if (c === 0x2d) return i + 1 < text.length && text.charCodeAt(i + 1) >= 0x30 && text.charCodeAt(i + 1) <= 0x39; // -digit
  return (c === 0x74 || c === 0x66 || c === 0x6e) && LITERAL_AHEAD.test(text.slice(i, i + 6)); // t f n
}

/**
 * `}` or `]`. With nothing of its kind open it is dropped. An object left open inside an array
 * (`[{"a":1]`) is closed with it. A `}` that meets an open array was meant as `]`
 * (`{"a": [1, 2}, "b": 3}`): it closes the array only, and the object goes on.
 */
function closeBracket(s: Scanner, isArray: boolean, i: number): boolean {
  const stack = s.stack;
  const last = stack[stack.length - 1];
  // the `]` of members written in brackets; the `}` of a Python set
  if (last !== undefined && (isArray ? last.bracketed : last.set === SET_READ)) {
    s.i = i + 1;
    s.close(undefined, i);
    return true;
  }
  let k = stack.length - 1;
  while (k >= 0 && stack[k]!.isArray !== isArray) k--;
  s.i = i + 1;
  if (k < 0) {
    // repair: a closer that matches nothing open (`{"a":1}]`) is dropped
    s.record('removed_extra_closing_bracket', i);
    return true;
  }
  const top = stack[stack.length - 1]!;
  if (top.isArray && !isArray) {
    // repair: `[1, 2}` — a closer of the wrong kind is taken as the right one
    s.close('closed_mismatched_bracket', i);
    return true;
  }
  while (stack.length - 1 > k) {
    const inner = stack[stack.length - 1]!;
    // repair: `[{"a":1]` — the object inside was never closed
    s.close(inner.isArray ? 'closed_array_bracket' : 'closed_object_bracket', i);
  }
  s.close(undefined, i);
  return true;
}

const ITEM_AHEAD = 256;

/**
 * Where a member name goes after a comma, one item and then the `]` of an array
 * (`{"a": [1, 2], 3]}`): a number, word or quoted string followed by `]`.
 * 1: such an item; 0: not; -1: more input is needed.
 */
function itemBeforeCloser(s: Scanner, i: number): number {
  const text = s.text;
  const top = s.stack[s.stack.length - 1]!;
  if (top.isArray || top.members === 0 || !Array.isArray((top.container as Record<string, unknown>)[top.lastKey])) return 0;
  const stop = Math.min(text.length, i + ITEM_AHEAD);
  const end = itemEnd(text, i, stop);
  if (end === NO_ITEM) return 0;
  const j = end === MORE_INPUT ? stop : blanksEnd(text, end, stop);
  if (j >= stop) return stop < text.length || s.final ? 0 : -1;
  return text.charCodeAt(j) === 0x5d ? 1 : 0; // ]
}

/** itemEnd's answers besides an index: no item starts here; the lookahead ends inside it. */
const NO_ITEM = -1;
const MORE_INPUT = -2;

/**
 * The index after the item at i — a string quoted on its line or a word of `[\w.+-]` (a number,
 * a literal, a bare word) — read no further than stop; NO_ITEM, or MORE_INPUT when stop comes first.
 */
function itemEnd(text: string, i: number, stop: number): number {
  const c = text.charCodeAt(i);
  let j = i;
  if (c === 0x22 || c === 0x27) { // " '
    j = i + 1;
    while (j < stop && text.charCodeAt(j) !== c && text.charCodeAt(j) !== 0x0a) j += text.charCodeAt(j) === 0x5c ? 2 : 1; // \ LF
    if (j >= stop) return MORE_INPUT;
    return text.charCodeAt(j) === c ? j + 1 : NO_ITEM;
  }
  while (j < stop && /[\w.+-]/.test(text[j]!)) j++;
  return j === i ? NO_ITEM : j;
}

/** The first index from j, before stop, that is not a space or a tab (stop when none). */
function blanksEnd(text: string, j: number, stop: number): number {
  while (j < stop && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j++; // space tab
  return j;
}

/** Puts a container read earlier back on the stack, its members going on after `lastKey`. */
function reopen(s: Scanner, container: unknown[] | Record<string, unknown>, lastKey = '', members = 0): void {
  s.stack.push({ container, isArray: Array.isArray(container), key: undefined, lastKey, keyPos: 0, members, memoHits: 0, bracketed: false, tuple: false, set: SET_NONE, openAt: 0 });
}

/**
 * `{"key": ["a"], ["b"], "c": 1}`: a `[` where a member name goes, after the comma of a member
 * whose value is an array — that array's `]` came too early, and the elements go on in it. No
 * nesting is invented: the bracket's items join the array (`["a", "b"]`; `[[1], "x"], [[2], [3]]`
 * → `[[1], "x", [2], [3]]`), except that in an array of arrays a bracket of scalars is one more
 * row (`[["a"], ["b"]], ["c"]` → `[["a"], ["b"], ["c"]]`). A reading chosen: medium.
 */
function reopenArray(s: Scanner, i: number, bracket: boolean): boolean {
  const top = s.stack[s.stack.length - 1]!;
  if (top.isArray || top.members === 0 || s.stack.length >= MAX_DEPTH) return false;
  const last = (top.container as Record<string, unknown>)[top.lastKey];
  if (!Array.isArray(last)) return false;
  const text = s.text;
  let row = false;
  if (bracket) {
    let k = i + 1;
    while (k < text.length && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x09)) k++;
    if (k >= text.length && !s.final) return false;
    row = k < text.length && text.charCodeAt(k) !== 0x5b && Array.isArray(last[0]); // [
  }
  // repair: `{"a": [1, 2], 3]}` — the array's early `]` is dropped and the items go on in it
  s.log.doubt('removed_extra_closing_bracket', s.at(i), 'medium');
  if (s.sink !== null) s.sink.diverge();
  reopen(s, last);
  s.afterComma = false;
  s.phase = VALUE;
  if (!bracket) return true;
  if (row) {
    s.open(true, i); // the bracket is one more row of the array
    return true;
  }
  s.i = i + 1; // the bracket's items are the array's own
  return true;
}

/**
 * Scalars separated by commas from i, then a `]` and nothing but white space to the end (`3, 4]`):
 * 1; 0 when the text is anything else; -1 when more input is needed. Looks ITEM_AHEAD characters
 * at most, so a reply that keeps on costs nothing more.
 */
function itemsThenCloser(text: string, i: number, final: boolean): number {
  const stop = Math.min(text.length, i + ITEM_AHEAD);
  const more = stop < text.length || final ? 0 : -1;
  let j = i;
  for (;;) {
    const end = itemEnd(text, j, stop);
    if (end === NO_ITEM) return 0;
    if (end === MORE_INPUT) return more;
    j = blanksEnd(text, end, stop);
    if (j >= stop) return more;
    const d = text.charCodeAt(j);
    if (d === 0x5d) break; // ]
    if (d !== 0x2c) return 0; // ,
    j = blanksEnd(text, j + 1, stop);
    if (j >= stop) return more;
  }
  for (j++; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return 0; // space tab LF CR
    if (j - i > ITEM_AHEAD) return 0;
  }
  return final ? 1 : -1;
}

/**
 * `[1, 2], 3]`: items and a `]` follow the root array's closer and a comma, so that closer came
 * too early. No nesting is invented: the array is opened again and the items join it. A reading
 * chosen (the items could have been a value of their own): medium.
 */
function reopenRootArray(s: Scanner, i: number): boolean {
  // repair: the early closer is dropped
  s.log.doubt('removed_extra_closing_bracket', s.rootClosePos, 'medium');
  if (s.sink !== null) s.sink.diverge();
  reopen(s, s.roots[0] as unknown[]);
  s.afterComma = true;
  s.commaPos = s.rootCommaPos;
  s.rootCommaPos = -1;
  s.phase = VALUE;
  s.i = i;
  return true;
}

/**
 * `{"a":1}, "b":2}`: a member follows the root object's closer and a comma, so that closer came too
 * early. The object is opened again and the member joins it.
 */
function reopenRoot(s: Scanner): boolean {
  if (s.rootCommaPos < 0) return false;
  const last = s.roots[s.roots.length - 1];
  if (last === null || typeof last !== 'object' || Array.isArray(last)) return false;
  // repair: the early closer is dropped
  s.log.record('removed_extra_closing_bracket', s.rootClosePos);
  if (s.sink !== null) s.sink.diverge();
  const names = Object.keys(last);
  reopen(s, last as Record<string, unknown>, names[names.length - 1] ?? '', names.length);
  s.rootCommaPos = -1;
  s.afterComma = false;
  s.phase = KEY;
  return true;
}

/**
 * The `)` of a Python tuple. `(1, 2)`, `(1,)` and `()` are arrays; one value in parentheses with no
 * comma (`("x")`, `(1)`) is that value, as Python reads it — a reading a careful reader may not
 * share (a one-element list was perhaps meant): medium.
 */
function closeTuple(s: Scanner, i: number): boolean {
  const arr = s.stack[s.stack.length - 1]!.container as unknown[];
  const alone = arr.length === 1 && !s.afterComma;
  s.i = i + 1;
  s.close(undefined, i);
  if (alone) {
    // repair: `("x")` — parentheses around one value are grouping, not a tuple
    s.log.doubt('replaced_python_literal', s.at(i), 'medium');
    if (s.sink !== null) s.sink.diverge();
    s.replaceLast(arr[0]);
  }
  return true;
}

function concatenation(s: Scanner, i: number): boolean {
  if (!s.lastWasString) {
    s.record('removed_invalid_character', i);
    s.i = i + 1;
    return true;
  }
  // repair: `"a" + "b"` — the next string is appended to this one
  s.record('concatenated_strings', i);
  s.concat = true;
  s.phase = VALUE;
  s.i = i + 1;
  return true;
}

function isEllipsis(s: Scanner, i: number): boolean {
  const text = s.text;
  return text.charCodeAt(i + 1) === 0x2e && text.charCodeAt(i + 2) === 0x2e; // ..
}

function skipEllipsis(s: Scanner, i: number): boolean {
  // repair: `[1, 2, ...]` — a placeholder for omitted items is dropped
  s.record('removed_ellipsis', i);
  s.i = i + 3;
  s.phase = AFTER_VALUE;
  s.afterComma = false;
  return true;
}

/**
 * A backtick where a name or value starts: a code block used as a value (scan-block.ts), a fence,
 * or a JavaScript template string (`text`).
 */
function backtick(s: Scanner, i: number, isKey: boolean): boolean {
  const f = s.fenceAt(i);
  if (!isKey && f > 0) {
    const place = codeBlockPlace(s, i);
    if (place < 0) return false;
    if (place > 0) {
      // Once the reply was fenced, a ``` with no other after it is that fence's close (a truncated reply).
      const read = scanBlock(s, i, 0x60, blockOpenerAt(s, i, 0x60), s.fenced);
      if (read !== NOT_A_BLOCK) return read;
    }
  }
  if (f !== 0) return fence(s, i);
  startString(s, 0x60, isKey, i);
  return true;
}

/**
 * Whether the ``` at window index i where a value goes may open a code block that is the value (1),
 * or is a fence around the JSON (0; -1: the window ends too early to say). A member's value
 * (`"code": ```python`) is a block; an array's item is one only when its tag names another
 * language than JSON (`[```json\n{…}` is the reply's own fence, opened inside a prefilled `[`).
 */
function codeBlockPlace(s: Scanner, i: number): number {
  if (s.blockSearch >= 0) return 1;
  const top = s.stack[s.stack.length - 1];
  if (top === undefined) return 0;
  if (!top.isArray) return 1;
  const text = s.text;
  const lineEnd = text.indexOf('\n', i + 3);
  if (lineEnd < 0) return s.final ? 0 : -1;
  const tag = text.slice(i + 3, lineEnd).trim();
  return tag === '' || /^(json[c5]?|javascript|js)$/i.test(tag) ? 0 : 1;
}

/** A ``` inside the structure: the closing fence of a truncated reply, or stray. */
function fence(s: Scanner, i: number): boolean {
  const f = s.fenceAt(i);
  if (f < 0) return false;
  if (f === 0) {
    s.record('removed_invalid_character', i);
    s.i = i + 1;
    return true;
  }
  if (!s.fenced) return s.skipFenceLine(i, true); // `{```json\n{...}` — an opening fence inside
  // repair: the closing fence arrived before the JSON closed; the rest is not JSON (words in it
  // are checked against the value: content-check.ts)
  s.record('removed_markdown_fence', i);
  s.cutInside = true;
  s.i = i + 3;
  s.phase = TRAILING;
  return true;
}

// The check that no repair silently drops a value's content: every word written inside the JSON's
// span (from its first bracket to the closer of its last root, or the end of a truncated reply) must
// be found in the repaired value's names and strings. What a reader expects gone is not counted:
// comments, a code block's language tag, the name of a wrapper call (`ObjectId(`, a JSONP callback),
// literals the repair spells otherwise (`None`, `NaN`, `undefined`) and numbers (`1e3` is 1000).
// repair.ts runs it only after the repairs that can drop text inside the JSON (DROPPING_KINDS, or
// a reading stopped inside an open container), so plain and lightly broken replies, fenced ones
// included, never pay for it.
import type { RepairType } from './repair-kinds.js';

export const DROPPING_KINDS: readonly RepairType[] = [
  'removed_truncated_member', 'removed_invalid_character', 'removed_extra_closing_bracket', 'closed_mismatched_bracket',
  'converted_array_to_object', 'quoted_bare_string', 'inserted_missing_colon', 'removed_member_without_value',
];

const MAX_LOOKUPS = 64;
const SPELLED_OTHERWISE = new Set(['true', 'false', 'null', 'True', 'False', 'None', 'NaN', 'nan', 'undefined',
  'Infinity', 'inf', 'new', 'TRUE', 'FALSE', 'NULL']);
const LONGEST_LITERAL = 9; // `undefined`

/** A letter, digit or underscore, or a character past Latin-1's symbols outside general punctuation. */
function isWordCode(c: number): boolean {
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  return c >= 0xc0 && !(c >= 0x2000 && c <= 0x206f) && c !== 0xfeff && c !== 0x3000;
}

/**
 * Input offset of the first word inside `spans` (pairs of [from, to) offsets, in order) that the
 * value does not hold, or -1. A member name at `danglingName` that starts a member and ends the reply
 * (cut off before its value: it has no value to keep) is not counted.
 *
 * One pass over all spans: the value's words are collected once, the cursor never moves back (a
 * comment that runs past a span's end is skipped once), and a search for a comment's end that found
 * none is not repeated — so many roots cost their length, not roots × value.
 */
export function droppedWordAt(text: string, spans: readonly number[], value: unknown, danglingName = -1): number {
  let nameEnd = danglingName < 0 || !startsMember(text, danglingName) ? -1 : nameEndAt(text, danglingName);
  if (nameEnd >= 0 && !/^["']?\s*:?\s*[-+]?$/.test(text.slice(nameEnd, nameEnd + 64))) nameEnd = -1; // not the reply's last words
  let words: Set<string> | null = null;
  let joined: string | null = null;
  // A word the value splits otherwise (`caf\u00e9`, `\times`) is looked for in all of its text, at
  // most this many times in all: the check stays linear, and past the limit it vouches for nothing.
  let lookups = MAX_LOOKUPS;
  // Where the next line end / block comment end lies (-1: none after that point), found once each.
  let lineEnd = -2;
  let blockEnd = -2;
  // Whether the reply opened a fence before its JSON, and whether a code block used as a value is
  // open: a fence alone on its line then closes the reply's block, not the value's.
  const fencedReply = spans.length > 0 && text.lastIndexOf('```', spans[0]!) >= 0;
  let innerBlock = false;
  let i = 0;
  for (let s = 0; s < spans.length; s += 2) {
    const to = spans[s + 1]!;
    if (i < spans[s]!) i = spans[s]!;
    while (i < to) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) { // \ — an escape: its letter is not text
        i += text.charCodeAt(i + 1) === 0x75 ? 6 : 2; // u
        continue;
      }
      if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) { // //
        if (lineEnd !== -1 && lineEnd < i) lineEnd = text.indexOf('\n', i);
        i = lineEnd < 0 ? to : lineEnd + 2;
        continue;
      }
      if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) { // /*
        if (blockEnd !== -1 && blockEnd < i + 2) blockEnd = text.indexOf('*/', i + 2);
        i = blockEnd < 0 ? to : blockEnd + 2;
        continue;
      }
      if (c === 0x23 && !isWordCode(text.charCodeAt(i + 1))) { // # and a space: a comment
        if (lineEnd !== -1 && lineEnd < i) lineEnd = text.indexOf('\n', i);
        i = lineEnd < 0 ? to : lineEnd + 1;
        continue;
      }
      if (c === 0x60 && text.startsWith('```', i)) { // ``` and its language tag
        const lineStart = atLineStart(text, i);
        i += 3;
        while (i < to && (text.charCodeAt(i) === 0x60 || isWordCode(text.charCodeAt(i)))) i++;
        // A fence alone on its line inside a span closes the reply's block (the span of a value
        // cut off inside its fence runs to the end of the reply): what follows it is prose after
        // the block, not the value's text.
        let k = i;
        while (k < to && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k++;
        const alone = lineStart && (k >= to || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d); // LF CR
        if (innerBlock) innerBlock = false; // the close of a code block used as a value
        else if (alone && fencedReply) i = to;
        else innerBlock = true;
        continue;
      }
      if (!isWordCode(c)) {
        i++;
        continue;
      }
      const start = i;
      while (i < to && isWordCode(text.charCodeAt(i))) i++;
      if (start >= danglingName && start < nameEnd) continue;
      const first = text.charCodeAt(start);
      if (first >= 0x30 && first <= 0x39) continue; // a number
      if (i - start <= LONGEST_LITERAL) {
        const word = text.slice(start, i);
        if (SPELLED_OTHERWISE.has(word) || (endsText(text, i, to) && isLiteralPrefix(word))) continue;
      }
      let k = i;
      while (k < to && text.charCodeAt(k) === 0x20) k++;
      if (text.charCodeAt(k) === 0x28) continue; // ( — a wrapper's name
      const word = text.slice(start, i);
      words ??= wordsOf(value);
      if (words.has(word)) continue;
      if (--lookups < 0) return -1;
      joined ??= [...words].join(' ');
      if (joined.includes(word)) continue;
      return start;
    }
  }
  return -1;
}

/**
 * Whether a `,` or `{` comes before `at` (blanks and block comments aside), or `at` starts a line:
 * the name there starts a member.
 */
function startsMember(text: string, at: number): boolean {
  let k = at - 1;
  for (;;) {
    while (k >= 0 && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k--;
    if (k < 1 || text.charCodeAt(k) !== 0x2f || text.charCodeAt(k - 1) !== 0x2a) break; // a comment ends: */
    const open = text.lastIndexOf('/*', k - 2);
    if (open < 0) break;
    k = open - 1;
  }
  const c = text.charCodeAt(k);
  return c === 0x2c || c === 0x7b || c === 0x0a || c === 0x0d; // , { LF CR
}

/** Whether only blanks (spaces, tabs) come between the line's start and index i. */
function atLineStart(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k--;
  return k < 0 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d; // LF CR
}

/** Whether only blanks follow index i before `to`: a literal cut there (`Tru`) was completed. */
function endsText(text: string, i: number, to: number): boolean {
  while (i < to && text.charCodeAt(i) <= 0x20) i++;
  return i >= to;
}

function isLiteralPrefix(word: string): boolean {
  for (const literal of SPELLED_OTHERWISE) if (literal.startsWith(word)) return true;
  return false;
}

/** Where the member name starting at `at` ends: its closing quote, or the end of its word. */
function nameEndAt(text: string, at: number): number {
  const q = text.charCodeAt(at);
  if (q === 0x22 || q === 0x27) { // " '
    const end = text.indexOf(String.fromCharCode(q), at + 1);
    return end < 0 ? text.length : end;
  }
  let k = at;
  while (k < text.length && isWordCode(text.charCodeAt(k))) k++;
  return k;
}

/** The words of every name and string in the value (explicit stack: no recursion). */
function wordsOf(root: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') addWords(out, v);
    else if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) for (let k = 0; k < v.length; k++) stack.push(v[k]);
      else for (const key of Object.keys(v)) {
        addWords(out, key);
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return out;
}

function addWords(out: Set<string>, text: string): void {
  let i = 0;
  while (i < text.length) {
    if (!isWordCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isWordCode(text.charCodeAt(i))) i++;
    out.add(text.slice(start, i));
  }
}

// The reply read as the schema's root scalar, when the schema's root is a string, an enum, a const,
// a number or a boolean and the reply is text (`TWO`, `São Paulo`, `**Positive**`, `TWO: the
// second one`, `The answer is One`). docs/schema.md "Alignment" lists what each reading is worth.
import { parseFormattedNumber, parseJsonNumber } from './coerce.js';
import type { Effective } from './effective.js';
import { T_ARRAY, T_BOOLEAN, T_INTEGER, T_NUMBER, T_OBJECT, T_STRING, typeBitOf } from './type-mask.js';

export interface RootScalar {
  value: unknown;
  /** high: the text is the value; medium: folded, unwrapped or taken whole; low: found in prose. */
  confidence: 'high' | 'medium' | 'low';
  /** Enum members the prose names when it names more than one (then `value` is undefined). */
  several?: string[];
}

/** Whether the schema's root can only be a scalar: the reply is then read as one. */
export function wantsRootScalar(root: Effective): boolean {
  if ((root.types & (T_OBJECT | T_ARRAY)) === 0) return root.types !== 0;
  return root.enums !== null && root.enums.every((info) => info.members.every((m) => m === null || typeof m !== 'object'));
}

/** Accents off, lower case, spaces trimmed: how a reader compares a word with an enum member. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();
}

/**
 * The text without what wraps an answer: a fence, `**bold**`, `*`, `_`, back-ticks, quotes and a
 * final period. `exact` stays true when nothing but blanks was taken off.
 */
function unwrap(text: string): { text: string; exact: boolean } {
  let t = text.trim();
  const before = t;
  const fence = /^```[\w+.-]*[ \t]*\n?([\s\S]*?)\n?```$/.exec(t);
  if (fence !== null) t = fence[1]!.trim();
  for (let again = true; again && t.length >= 2;) {
    again = false;
    for (const [open, close] of WRAPPERS) {
      if (t.length > open.length + close.length && t.startsWith(open) && t.endsWith(close)) {
        t = t.slice(open.length, t.length - close.length).trim();
        again = true;
      }
    }
  }
  if (t.endsWith('.') && !/\d\.$/.test(t)) t = t.slice(0, -1).trim();
  return { text: t, exact: t === before };
}

const WRAPPERS: ReadonlyArray<readonly [string, string]> = [['**', '**'], ['__', '__'], ['*', '*'], ['_', '_'], ['`', '`'],
  ['"', '"'], ["'", "'"], ['“', '”'], ['‘', '’'], ['«', '»']];

// `VALUE: description`, `VALUE - description`, `VALUE — description`.
const HEAD = /^(.{1,200}?)\s*(?::|\s[-–—]\s)\s*\S/s;

/** The reply as the root scalar `root` asks for, or null when the text gives none. */
export function readRootScalar(text: string, root: Effective): RootScalar | null {
  const { text: t, exact } = unwrap(text);
  if (t.length === 0) return null;
  if (root.enums !== null) return enumReading(text, t, exact, root);
  const types = root.types;
  if ((types & (T_NUMBER | T_INTEGER)) !== 0) {
    const plain = parseJsonNumber(t);
    const n = plain ?? parseFormattedNumber(t);
    if (n !== undefined && (typeBitOf(n) & types) !== 0) return { value: n, confidence: plain !== undefined && exact ? 'high' : 'medium' };
  }
  if ((types & T_BOOLEAN) !== 0) {
    const word = t.toLowerCase();
    if (word === 'true' || word === 'false') return { value: word === 'true', confidence: t === word && exact ? 'high' : 'medium' };
  }
  if ((types & T_STRING) !== 0) {
    // A quoted answer is the text inside its quotes; bare text is taken whole, as written.
    const quoted = /^"(?:[^"\\]|\\.)*"$/.test(text.trim());
    if (quoted) {
      try {
        return { value: JSON.parse(text.trim()) as unknown, confidence: 'high' };
      } catch {
        // not a JSON string: taken whole below
      }
    }
    return { value: text.trim(), confidence: 'medium' };
  }
  return null;
}

function enumReading(whole: string, t: string, exact: boolean, root: Effective): RootScalar | null {
  const members: string[] = [];
  for (const info of root.enums!) for (const m of info.members) if (typeof m === 'string') members.push(m);
  if (members.length === 0) return null;
  const allowed = (m: string): boolean => root.enums!.every((info) => info.has(m));
  const candidates = members.filter(allowed);
  const direct = match(t, candidates);
  if (direct !== undefined) return { value: direct, confidence: exact && direct === t ? 'high' : 'medium' };
  const head = HEAD.exec(t);
  if (head !== null) {
    const found = match(unwrap(head[1]!).text, candidates);
    if (found !== undefined) return { value: found, confidence: 'medium' };
  }
  // The prose names members: one is the answer (low), several are a question for the caller.
  const folded = foldText(whole);
  const named = candidates.filter((m) => {
    const f = foldText(m);
    if (f.length === 0) return false;
    let at = folded.indexOf(f);
    while (at >= 0) {
      if (!isWordCode(folded.charCodeAt(at - 1)) && !isWordCode(folded.charCodeAt(at + f.length))) return true;
      at = folded.indexOf(f, at + 1);
    }
    return false;
  });
  if (named.length === 1) return { value: named[0], confidence: 'low' };
  if (named.length > 1) return { value: undefined, confidence: 'low', several: named };
  return null;
}

/** The one member `text` is, exactly or folded; undefined when none or several. */
function match(text: string, members: readonly string[]): string | undefined {
  if (members.includes(text)) return text;
  const f = foldText(text);
  let found: string | undefined;
  for (const m of members) {
    if (foldText(m) !== f) continue;
    if (found !== undefined && found !== m) return undefined;
    found = m;
  }
  return found;
}

function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0xc0;
}

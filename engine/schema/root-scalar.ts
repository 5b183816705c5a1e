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
  // A few layers at most (`**"TWO"**`): each costs a copy, so a run of thousands stays cheap.
  for (let again = true, layers = 0; again && t.length >= 2 && layers < MAX_LAYERS; layers++) {
    again = false;
    for (const [open, close] of WRAPPERS) {
      if (t.length > open.length + close.length && t.startsWith(open) && t.endsWith(close)) {
        t = t.slice(open.length, t.length - close.length).trim();
        again = true;
      }
    }
  }
  if (t.endsWith('.')) t = t.slice(0, -1).trim();
  return { text: t, exact: t === before };
}

const MAX_LAYERS = 6;
/** Prose longer than this is not searched for members: a scalar answer is short, and the search costs text × members. */
const MAX_PROSE = 16_384;
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
    // One number in the prose is the answer (`It costs about $1,200 in total`); several are not guessed.
    const numbers = text.length > MAX_PROSE ? null : text.match(NUMBER_IN_PROSE);
    if (numbers !== null && numbers.length === 1) {
      const found = parseJsonNumber(numbers[0]!) ?? parseFormattedNumber(numbers[0]!);
      if (found !== undefined && (typeBitOf(found) & types) !== 0) return { value: found, confidence: 'low' };
    }
  }
  if ((types & T_BOOLEAN) !== 0) {
    const word = t.toLowerCase();
    if (word === 'true' || word === 'false') return { value: word === 'true', confidence: t === word && exact ? 'high' : 'medium' };
    const named = namedIn(text, ['true', 'false'], false);
    if (named.length === 1) return { value: named[0] === 'true', confidence: 'low' };
    if (named.length > 1 && (types & T_STRING) === 0) return { value: undefined, confidence: 'low', several: named };
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
  const candidates = [...new Set(members.filter(allowed))];
  const direct = t.length > MAX_PROSE ? undefined : match(t, candidates);
  if (direct !== undefined) return { value: direct, confidence: exact && direct === t ? 'high' : 'medium' };
  // The prose names members: one is the answer, several are a question for the caller.
  const named = namedIn(whole, candidates);
  const head = HEAD.exec(t);
  if (head !== null) {
    const found = match(unwrap(head[1]!).text, candidates);
    // `ONE: the first` is ONE; `ONE - is the answer, not TWO` names two.
    if (found !== undefined && named.every((m) => m === found)) return { value: found, confidence: 'medium' };
  }
  if (named.length === 1) return { value: named[0], confidence: 'low' };
  if (named.length > 1) return { value: undefined, confidence: 'low', several: named };
  return null;
}

// A number written in prose: a sign, a currency sign, digits with or without thousands separators.
const NUMBER_IN_PROSE = /(?<![\w.])[-+]?[$€£¥]?\d+(?:,\d{3})*(?:\.\d+)?(?![\w])/g;

/**
 * The members the text names as words. A member written in its own case counts first: when only
 * one is (`TWO is one of the answers`), it is the one meant; otherwise case and accents are folded.
 * `caseTells` false: case says nothing (`true`/`false`, which models capitalize at will).
 */
function namedIn(text: string, members: readonly string[], caseTells = true): string[] {
  if (text.length > MAX_PROSE) return [];
  if (caseTells) {
    const exact = members.filter((m) => m.length > 0 && occursAsWord(text, m));
    if (exact.length === 1) return exact;
  }
  const folded = foldText(text);
  return members.filter((m) => {
    const f = foldText(m);
    return f.length > 0 && occursAsWord(folded, f);
  });
}

function occursAsWord(text: string, word: string): boolean {
  let at = text.indexOf(word);
  while (at >= 0) {
    if (!isWordCode(text.charCodeAt(at - 1)) && !isWordCode(text.charCodeAt(at + word.length))) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}

/** The one member `text` is, exactly or folded; undefined when none or several. */
function match(text: string, members: readonly string[]): string | undefined {
  if (members.includes(text)) return text;
  // Case and accents folded, then also spaces, `_`, `-` and `.` (`in progress` for `IN_PROGRESS`).
  for (const fold of [foldText, (x: string) => foldText(x).replace(/[\s_.-]+/g, '')]) {
    const f = fold(text);
    let found: string | undefined;
    let several = false;
    for (const m of members) {
      if (fold(m) !== f) continue;
      if (found !== undefined && found !== m) several = true;
      found = m;
    }
    if (several) return undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0xc0;
}

// Self-correction (docs/repairs.md "A reply that corrects itself"): a reply that writes an answer,
// retracts it on a line of its own ("Correction:", "Wait,", "Actually,", "Updated:", "The output
// got cut off, here is the complete JSON:") and writes another has the later one as its answer, at
// medium at best. A retraction followed only by a patch of one member (`Correction: "age": 5`) is
// undecided: the first answer stands, at low, with a warning. Only replies whose first reading was
// not clean reach here (a second value after the first always shows in that reading), and a
// retraction is searched for once: the cost is one pass over the text and one reading of what
// follows the retraction.
import { makeWarning } from './error-codes.js';
import { successResponse } from './response.js';
import { FIRST_READING, Scanner, type ProsePolicy } from './scanner/scanner.js';
import type { RepairDetail, RepairResponse } from './types.js';
import type { RepairType } from './repair-kinds.js';

// A retraction word (group 1: it must start its line, after at most two words of lead-in such as
// `Hmm,` or `Oh`, or follow the answer's closer), or a phrase anywhere on a line of prose that says
// the earlier answer was cut or is replaced (group 2).
const RETRACTION_WORD = String.raw`correction|corrected|wait|actually|update[ds]?|oops|sorry|scratch that|my (?:mistake|bad)|on second thought|let me (?:fix|correct|redo|try again)|revised|fixed version`;
const RETRACTION = new RegExp(String.raw`\b(${RETRACTION_WORD})\b|\b((?:got|was|been|is) cut off|cut off|truncated|incomplete|here (?:is|'s) the (?:complete|full|corrected|correct|fixed|updated|revised|final|whole)|(?:complete|full|corrected|correct|fixed|updated|revised|whole|final) (?:json|version|answer|output|object|response))\b`, 'gi');
/** A line's text before a retraction word that starts it: decoration, at most two words of lead-in. */
const LEAD_IN = /^[ \t>*_#-]*(?:[A-Za-z]+[,.!]*[ \t]+){0,2}$/;
/** A retraction word that retracts for certain, with no new answer after it (not `Sorry for the delay`). */
const STRONG = /^(?!sorry)/i;
// What a patch of one member looks like: a name, a colon and a value (`"age": 5`, `age = 5`), or a
// sentence that sets one (`age should be 5`).
const MEMBER_PATCH = /["'`]?[A-Za-z_][\w.-]{0,60}["'`]?[ \t]*[:=][ \t]*[^\s:]|\b(?:should (?:be|have been)|is actually|must be|instead of)\b/;
// The retraction says the earlier answer was cut: an earlier answer left open is what it retracts.
// (`incomplete` holds `complete`.) Plain literals: V8 searches for them in one fast pass (0.6 µs over
// bench/engine's 1 KB reply, against 2.5 µs for a pass over its lines).
const CUT_WORDS = /cut off|truncated|complete|full|whole/gi;
/** A line's text before a retraction word that ends an answer: its closer, punctuation, at most two words of lead-in. */
const AFTER_CLOSER = /[}\]][ \t]*[-\u2013\u2014.,;:!)]*[ \t]*(?:[A-Za-z]+[,.!]*[ \t]+){0,2}$/;
/** A line's text before a retraction phrase: the answer's closer, then words. */
const PROSE_AFTER_CLOSER = /[}\]][^"'{}[\]]*$/;
/** At most this many characters of a retraction's line before it are read. */
const PREFIX_MAX = 160;
const EVERY_VALUE: ProsePolicy = { ...FIRST_READING, inlineFragmentsAreProse: false };

export interface Retraction {
  /** Input offset where the retraction starts. */
  at: number;
  /** Input offset just after the retraction's word or phrase. */
  wordEnd: number;
  /** The retraction word is one that retracts for certain. */
  strong: boolean;
  /** Input offset where the text after the retraction line starts. */
  after: number;
}

// Repairs that read only JSON's own tokens: none of them takes a line of words into the value.
const TOKEN_REPAIRS: ReadonlySet<string> = new Set<RepairType>([
  'removed_markdown_fence', 'stripped_leading_text', 'closed_object_bracket', 'closed_array_bracket',
  'closed_string', 'converted_single_quotes', 'removed_trailing_comma', 'removed_duplicate_comma',
  'replaced_nan', 'normalized_decimal', 'completed_truncated_literal', 'replaced_python_literal',
  'converted_smart_quotes', 'removed_truncated_member', 'removed_invalid_escape', 'escaped_backslash',
  'replaced_undefined', 'removed_extra_closing_bracket', 'removed_ellipsis', 'quoted_unquoted_keys',
]);

/**
 * Whether a lone value left open, whose first reading was certain at every repair, may hold a
 * retraction. Inside one value a retraction is a line of words the reading took in: a string over
 * lines (escaped_control_character), a comment, a guess, or a bare name that may be prose (the
 * scanner's report.proseName, which the caller checks). Token repairs and bare names alone take in
 * no such line, and the reply is not searched: a regular-expression pass over the 1 KB reply of
 * bench/engine was a twentieth of its repair.
 */
export function mayHoldRetraction(details: readonly RepairDetail[]): boolean {
  for (const d of details) if (d.confidence !== 'high' || !TOKEN_REPAIRS.has(d.type)) return true;
  return false;
}

/**
 * The last retraction that follows an answer: it starts a line of prose, or follows the answer's
 * closer on its line (`{"a": 1} Wait, {"a": 2}`), and the answer before it closed there — or was
 * cut, when the retraction says so. Null when the reply retracts nothing.
 */
export function findRetraction(text: string, oneValue = false): Retraction | null {
  const firstOpen = firstOpener(text, 0);
  if (firstOpen < 0) return null;
  // The reply's first reading found one value running from its first opener to the end: a
  // retraction after that opener is inside it, and is one only if it says the value was cut.
  if (oneValue && !saysCut(text, firstOpen)) return null;
  let at = -1;
  let after = -1;
  let wordEnd = -1;
  let strong = false;
  let cut = false;
  // Line by line: the first opener's line whatever it holds; after it PROSE_LINE passes over the
  // answer's own lines (`"note": "…"`, `year: 1840,`, the bulk of a pretty-printed answer) without
  // searching them: a retraction there retracts nothing. A retraction's text before it on its line
  // is looked at only when short: a long line with many such words costs its length.
  for (let lineStart = text.lastIndexOf('\n', firstOpen) + 1; lineStart <= text.length;) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // From just after the first opener on its line (`\b` sees the same neighbours as in `text`).
    const from = Math.max(lineStart, firstOpen);
    const segmentAt = Math.max(lineStart, firstOpen + 1);
    const segment = text.slice(segmentAt, lineEnd);
    RETRACTION.lastIndex = 0;
    for (let m = RETRACTION.exec(segment); m !== null; m = RETRACTION.exec(segment)) {
      const index = segmentAt + m.index;
      if (index - from > PREFIX_MAX) continue;
      const prefix = text.slice(from, index);
      let start: number;
      if ((m[1] !== undefined ? AFTER_CLOSER : PROSE_AFTER_CLOSER).test(prefix)) start = index;
      else if (lineStart <= firstOpen) continue;
      else if (m[1] !== undefined ? LEAD_IN.test(prefix) : !/["'{[\]}]/.test(prefix)) start = lineStart;
      // A line of JSON (`"note": "actually …"`) or of prose that uses the word retracts nothing.
      else continue;
      at = start;
      after = lineEnd;
      wordEnd = index + m[0].length;
      strong = m[1] !== undefined && STRONG.test(m[1]);
      const line = text.slice(start, lineEnd);
      cut = saysCut(line, 0);
      // `Wait, correction: {"a": 2}`: the later answer starts on the retraction's line.
      const opener = firstOpener(line, index - start);
      if (opener >= 0) after = start + opener;
      break;
    }
    if (lineEnd >= text.length) break;
    PROSE_LINE.lastIndex = lineEnd;
    const next = PROSE_LINE.exec(text);
    if (next === null) break;
    lineStart = next.index + 1;
  }
  if (at < 0) return null;
  // The answer before the retraction closed there; or it was cut, and the retraction says so.
  // Otherwise the retraction is inside it (a string's text).
  const before = new Scanner(EVERY_VALUE, firstOpen);
  before.feed(text.slice(firstOpen, at), true);
  if (before.roots.length === 0) return null;
  if (before.leftOpen && !(cut && before.roots.length === 1)) return null;
  return { at, after, wordEnd, strong };
}

/**
 * The answer of a reply that retracts an earlier one. `later` is the repair of the text after the
 * retraction (its positions already in the whole input); `first` the reply's first reading.
 */
export function correctedAnswer(text: string, retraction: Retraction, first: RepairResponse, later: RepairResponse): RepairResponse | null {
  const opener = firstOpener(text, retraction.after);
  if (later.success && opener >= 0 && later.repaired !== null && typeof later.repaired === 'object') {
    const m = later.metadata;
    // repair: a reply that retracts its answer and writes another: the later one is the answer
    const chosen: RepairDetail = { type: 'selected_corrected_answer', confidence: 'medium', safe: false, position: opener, count: 1 };
    const syntax = [chosen, ...m.syntax_repairs.filter((d) => d.type !== 'stripped_leading_text')];
    return successResponse(later.repaired, syntax, m.schema_repairs, m.warnings);
  }
  if (opener < 0 && first.success && retraction.strong && MEMBER_PATCH.test(text.slice(retraction.wordEnd))) {
    // repair: a retraction followed only by a patch of one member: which answer is meant is not
    // decided; the first stands, at low, and a warning says the patch was not applied
    const m = first.metadata;
    const undecided: RepairDetail = { type: 'selected_corrected_answer', confidence: 'low', safe: false, position: retraction.at, count: 1 };
    const warnings = [...m.warnings, makeWarning('CORRECTION_NOT_APPLIED', undefined, { position: retraction.after })];
    return successResponse(first.repaired, [...m.syntax_repairs, undecided], m.schema_repairs, warnings);
  }
  return null;
}

/**
 * The line break before a line that is not the answer's, so may hold a retraction.
 * The answer's lines are passed over: a line whose first character past blanks is a quote
 * (`"note": "…"`); a bracket and commas (`},`); a blank line; a member with a bare name whose value
 * starts like JSON (a quote, digit, sign, opener or a literal) and that closes nothing
 * (`year: 1840,`, `tags: [`) — unless the name is a retraction word (`Correction: {…}`).
 * Pretty-printed answers are mostly such lines; one regular expression passes over them natively,
 * at a fraction of the cost of a call per line.
 */
const PROSE_LINE = new RegExp(String.raw`\n(?![ \t]*(?:["'][^\n]*|[{}[\]][ ,\r]*|\r?|(?!(?:${RETRACTION_WORD})[ \t]*:)[A-Za-z_$][\w$]*[ \t]*:[ \t]*(?:["'[{\d-]|(?:true|false|null|none)(?!\w))[^\n}\]]*)(?:\n|$))`, 'gi');

/** Whether text from `from` says an answer was cut (CUT_WORDS). */
function saysCut(text: string, from: number): boolean {
  CUT_WORDS.lastIndex = from;
  return CUT_WORDS.test(text);
}

/** The first `{` or `[` at or after `from`; -1 none. */
function firstOpener(text: string, from: number): number {
  const brace = text.indexOf('{', from);
  const bracket = text.indexOf('[', from);
  return brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
}

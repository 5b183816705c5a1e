// Batch repair: valid JSON takes the fast path through JSON.parse; anything else goes through the
// scanner once, as a single final piece — the same scanner a stream drives chunk by chunk.
// A number beyond double range (`1e999`) parses to Infinity, which no JSON can carry: such input
// takes the repair path, where it is reported (replaced_nan). So does a string whose `\f` or `\b`
// comes before a letter (`"\frac{1}{2}"`): valid JSON, but its backslash is raw (scan-string.ts).
// Only text that shows the sign of either is walked (parsed-wrong.ts).
import { alignLines, alignToSchema, liberties, passedOverValues } from './align.js';
import { DROPPING_KINDS, droppedWordAt } from './content-check.js';
import { DeadlineExceededError, withDeadline } from './deadline.js';
import { failureResponse, successResponse } from './response.js';
import { mapPosition, unescapeDocument, type UnescapedDocument } from './escaped-document.js';
import { MAX_DEPTH } from './scanner/phases.js';
import { FIRST_READING, type ProsePolicy, type Scanner } from './scanner/scanner.js';
import { KIND, repairDetail } from './scanner/repair-log.js';
import { applySchema } from './schema/index.js';
import type { RepairDetail, RepairOptions, RepairResponse, Warning } from './types.js';
import { readReply } from './reply-shape.js';
import { parsedWrong } from './parsed-wrong.js';
import { schemaOverCut, type CutShape } from './cut-member.js';
import { correctedAnswer, findRetraction, mayHoldRetraction } from './corrections.js';
import { makeError, makeWarning } from './error-codes.js';

export function repair(text: string, options?: RepairOptions): RepairResponse {
  if (options?.deadline === undefined) return repairText(text, options);
  try {
    return withDeadline(options.deadline, () => repairText(text, options));
  } catch (error) {
    // Work past the caller's time limit is stopped and answered as an error, not a repair.
    if (error instanceof DeadlineExceededError) return failureResponse([error.toRepairError()]);
    throw error;
  }
}

function repairText(text: string, options?: RepairOptions, corrections = true): RepairResponse {
  if (typeof text !== 'string') {
    return failureResponse([makeError('INVALID_REQUEST', 'The input must be a string.')]);
  }
  let value: unknown;
  let parsed = false;
  if (mayBeJson(text)) {
    // Half of a failed JSON.parse is the stack trace its SyntaxError captures, which nobody reads
    // (measured: 4.8 -> 2.1 µs for `{a:1}`). Nothing else runs between these two lines.
    const traceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      value = JSON.parse(text);
      parsed = true;
    } catch {
      // not valid JSON: repaired below
    } finally {
      Error.stackTraceLimit = traceLimit;
    }
    // Valid JSON that JSON.parse reads wrong (parsed-wrong.ts): a number past a double's range, or
    // `\b` `\f` before a letter. The value is walked only where the text shows the sign.
    if (parsed && parsedWrong(text, value)) parsed = false;
  }
  if (parsed) return aligned(text, withSchema(value, [], [], options), options);
  const escaped = unescapeDocument(text);
  const read = escaped === null ? text : escaped.text;
  let reading = readReply(read);
  let first = conclude(reading, read, options, escaped);
  if (first.success && options?.schema !== undefined && options.schema !== null && readItemsAsStrings(first)) {
    // repair: with a schema, quotes inside array items read as text (`["He said "yes", then left"]`)
    // when that reading fits too and takes fewer liberties
    const againReading = readReply(read, STRING_ITEMS);
    const again = conclude(againReading, read, options, escaped);
    if (again.success && liberties(again) < liberties(first)) {
      first = again;
      reading = againReading;
    }
  }
  if (corrections && (!first.success || first.metadata.syntax_repairs.length > 0)) {
    // A reply that retracts its answer and writes another (corrections.ts). Prose inside a lone
    // value is read through a guess (a bare word, an inner quote, a dropped character), or as a bare
    // name with blanks (`{⏎The output was cut off. Complete JSON:⏎{…}`), or the value is left open:
    // one closed value read with every repair certain and no such name hides no retraction.
    const lone = first.success && oneValue(first);
    // A lone value left open with certain token repairs only (a cut pretty-printed answer) took in
    // no line of words either (mayHoldRetraction); a bare name that may be prose is in the report.
    const details = first.metadata.syntax_repairs;
    const certain = lone && !reading.report.proseName &&
      (details.some(leftOpen) ? !mayHoldRetraction(details) : first.metadata.confidence === 'high');
    const retraction = certain ? null : findRetraction(read, lone);
    if (retraction !== null) {
      // What follows the last retraction is read once, and not searched for retractions again.
      const later = shifted(repairText(read.slice(retraction.after), options, false), retraction.after);
      const answer = correctedAnswer(read, retraction, first.success ? aligned(read, first, options) : first, later);
      if (answer !== null) return answer;
    }
  }
  return leftOut(aligned(read, first, options));
}

function leftOpen(d: RepairDetail): boolean {
  return d.type === 'closed_object_bracket' || d.type === 'closed_array_bracket';
}

/**
 * The first reading found one value and nothing after it, and read no value in the prose before
 * it: no second value, no trailing text dropped, no JSON in the leading prose.
 */
function oneValue(first: RepairResponse): boolean {
  for (const d of first.metadata.syntax_repairs) {
    if (d.type === 'wrapped_multiple_values' || d.type === 'stripped_trailing_text') return false;
    if (d.type === 'stripped_leading_text' && d.confidence !== 'high') return false;
  }
  return !first.metadata.warnings.some((w) => w.code === 'VALUES_LEFT_OUT' || w.code === 'SEVERAL_ANSWERS');
}

/** A response read from a piece of the input that starts at `offset`, with positions in the whole input. */
function shifted(response: RepairResponse, offset: number): RepairResponse {
  for (const d of response.metadata.syntax_repairs) if (d.position !== undefined) d.position += offset;
  for (const w of response.metadata.warnings) if (w.position !== undefined) w.position += offset;
  return response;
}

/**
 * An answer from a reply that holds several JSON values no schema told apart (`{"a": 1} or maybe
 * {"a": 2}`, or values one after another, wrapped into an array): it is medium already (the
 * dropped text's or the wrapping's detail); a warning says so, unless AMBIGUOUS_CANDIDATES or
 * VALUES_LEFT_OUT does.
 */
function leftOut(response: RepairResponse): RepairResponse {
  if (!response.success) return response;
  const warnings = response.metadata.warnings;
  // One warning for one fact: the scanner's VALUES_LEFT_OUT already names the data left out.
  if (warnings.some((w) => w.code === 'AMBIGUOUS_CANDIDATES' || w.code === 'VALUES_LEFT_OUT')) return response;
  let at = -1;
  let wrapped = false;
  for (const d of response.metadata.syntax_repairs) {
    if ((d.type === 'stripped_leading_text' || d.type === 'stripped_trailing_text') && d.confidence !== 'high') at = d.position ?? 0;
    else if (d.type === 'wrapped_multiple_values') {
      at = d.position ?? 0;
      wrapped = true;
    }
  }
  if (at < 0) return response;
  // repair: several answers and no retraction between them: not certain, and a warning says so
  warnings.push(makeWarning('SEVERAL_ANSWERS', wrapped
    ? 'The reply holds several JSON values and no retraction says which one is meant; all were kept, as one array.'
    : undefined, { position: at }));
  response.metadata.confidence = response.metadata.confidence === 'low' ? 'low' : 'medium';
  return response;
}

/**
 * A throwing JSON.parse costs several microseconds whatever the size (the error object and its
 * message): text that cannot be JSON — prose, a fence — skips the attempt.
 */
function mayBeJson(text: string): boolean {
  let a = 0;
  let b = text.length - 1;
  while (a <= b && text.charCodeAt(a) <= 0x20) a++;
  while (b >= a && text.charCodeAt(b) <= 0x20) b--;
  if (a > b) return false;
  const first = text.charCodeAt(a);
  const last = text.charCodeAt(b);
  const firstOk = first === 0x7b || first === 0x5b || first === 0x22 || first === 0x2d || // { [ " -
    (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e; // digit t f n
  const lastOk = last === 0x7d || last === 0x5d || last === 0x22 || (last >= 0x30 && last <= 0x39) || // } ] " digit
    last === 0x65 || last === 0x6c; // e (true, false) l (null)
  if (!firstOk || !lastOk) return false;
  // The commonest broken objects show it at an end: `{name: …`, `{'a': …` (a first name not in
  // double quotes), `…, }` (a trailing comma before the last closer).
  if (first === 0x7b) { // {
    let k = a + 1;
    while (k < b && text.charCodeAt(k) <= 0x20) k++;
    const name = text.charCodeAt(k);
    if (name !== 0x22 && name !== 0x7d) return false; // " }
  }
  if (last === 0x7d || last === 0x5d) { // } ]
    let k = b - 1;
    while (k > a && text.charCodeAt(k) <= 0x20) k--;
    if (text.charCodeAt(k) === 0x2c) return false; // ,
  }
  return true;
}

/**
 * With a schema, the first reading's answer unless it failed or passed over other JSON values:
 * then the schema chooses among the readings of the reply (align.ts).
 */
function aligned(text: string, first: RepairResponse, options: RepairOptions | undefined): RepairResponse {
  if (options?.schema === undefined || options.schema === null) return first;
  if (first.success && !passedOverValues(first)) {
    // A container that validated needs no other reading; a scalar may read better from the text.
    const value = first.repaired;
    if (first.metadata.confidence === 'high') return first;
    if (value !== null && typeof value === 'object') return bracesLeftOut(first) ? moreMembers(text, first, options) : first;
  }
  if (!first.success && first.metadata.errors.some((e) => e.code === 'INVALID_REQUEST')) return first;
  // A cut reply whose root lacks a required member fails: another reading of it (the cut member
  // kept) is not the answer, and the cut would go unreported.
  if (!first.success && first.metadata.syntax_repairs.some((d) => d.type === 'removed_truncated_member') &&
    first.metadata.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT') && (text.includes('{') || text.includes('['))) return first;
  const answer = alignToSchema(text, options.schema, options.mode ?? 'strict', first) ?? first;
  if (answer.success || !readAsLines(text, first)) return answer;
  // No JSON in the reply fits: its lines or its list, read through the schema.
  return alignLines(text, options.schema, options.mode ?? 'strict') ?? answer;
}

/** The first reading opened an object the reply wrote no `{` for: its members are lines. */
function bracesLeftOut(first: RepairResponse): boolean {
  return first.metadata.syntax_repairs.some((d) => d.type === 'inserted_missing_opening_bracket');
}

/**
 * Members written with no braces (`"name": Ann` after prose): the lines read through the schema
 * when they give the object more members than the first reading kept, or as many where the first
 * reading guessed.
 */
function moreMembers(text: string, first: RepairResponse, options: RepairOptions): RepairResponse {
  const lines = alignLines(text, options.schema, options.mode ?? 'strict');
  if (lines === null || lines.repaired === null || typeof lines.repaired !== 'object' || Array.isArray(lines.repaired)) return first;
  const more = Object.keys(lines.repaired).length - Object.keys(first.repaired as object).length;
  // As many members, where the first reading guessed at a value (`"tags": a, b` read as `"a"` and a
  // stray `b`): the lines, each value read as its declared type.
  const guessed = first.metadata.syntax_repairs.some((d) => d.confidence !== 'high' && d.type !== 'inserted_missing_opening_bracket');
  return more > 0 || (more === 0 && guessed) ? lines : first;
}

/**
 * Whether a failed reply may be lines or a list: not one that opens as JSON (`{`, `[`, a quoted
 * string, a fence around one) or was cut (its failure is the cut's, docs/schema.md "Cut replies").
 * A fence around lines (```` ```yaml ````, `name: Ann` on the next line) holds lines.
 */
function readAsLines(text: string, first: RepairResponse): boolean {
  let k = 0;
  while (k < text.length && text.charCodeAt(k) <= 0x20) k++;
  if (text.startsWith('```', k)) {
    // what the fence's first line of content opens with decides
    const lineEnd = text.indexOf('\n', k);
    if (lineEnd < 0) return false;
    k = lineEnd + 1;
    while (k < text.length && text.charCodeAt(k) <= 0x20) k++;
  }
  const c = text.charCodeAt(k);
  if (c === 0x7b || c === 0x5b || c === 0x60) return false; // { [ `
  // A quoted string is a string, unless it is a member's name (`"name": Ann`).
  if (c === 0x22 && !QUOTED_NAME.test(text.slice(k, k + 200))) return false; // "
  // A JSON container the reply opened and the cut ended is not lines (`Here:⏎{⏎"name": "An`).
  return !(first.metadata.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT') && (text.includes('{') || text.includes('[')));
}

const QUOTED_NAME = /^"[^"\n]{1,100}"[ \t]*[:=]/;
const STRING_ITEMS: ProsePolicy = { ...FIRST_READING, stringItems: true };

/** The first reading doubted a quote and took a bare value: its array items may be strings with inner quotes. */
function readItemsAsStrings(first: RepairResponse): boolean {
  let quote = false;
  let bare = false;
  for (const d of first.metadata.syntax_repairs) {
    if (d.type === 'escaped_inner_quote') quote = true;
    else if (d.type === 'quoted_bare_string') bare = true;
  }
  return quote && bare;
}

/** Turns a finished scanner into the response. */
function conclude(scanner: Scanner, text: string, options: RepairOptions | undefined, escaped: UnescapedDocument | null = null): RepairResponse {
  if (scanner.tooDeep) {
    return failureResponse([
      makeError('UNRECOVERABLE_SYNTAX_ERROR', `The input nests deeper than ${MAX_DEPTH} levels.`),
    ]);
  }
  const roots = scanner.roots;
  if (roots.length === 0) {
    return failureResponse([
      makeError('UNRECOVERABLE_SYNTAX_ERROR', 'No JSON value was found in the input.', {
        suggestion: 'Send text that contains a JSON object, array or value.',
      }),
    ]);
  }
  const value = roots.length === 1 ? roots[0] : roots.slice();
  checkContentKept(scanner, text, value);
  const details = scanner.log.details();
  const warnings = scanner.warnings.slice();
  if (escaped !== null) {
    // Positions were counted in the unescaped text: report them in the caller's input.
    for (const detail of details) detail.position = mapPosition(escaped, detail.position!);
    for (const warning of warnings) if (warning.position !== undefined) warning.position = mapPosition(escaped, warning.position);
    // repair: a document escaped as a whole (`{\"a\": 1}`) is unescaped once before it is read
    details.unshift(repairDetail('unescaped_json_text', escaped.position, 1));
  }
  const cut = scanner.cutPath === null ? undefined : { path: scanner.cutPath, leaf: scanner.cutLeaf, position: truncatedAt(warnings) };
  return withSchema(value, details, warnings, options, cut);
}

/** Where the TRUNCATED_OUTPUT warning says the cut value starts; -1 when the reply only lacks closers. */
function truncatedAt(warnings: Warning[]): number {
  for (const w of warnings) if (w.code === 'TRUNCATED_OUTPUT') return w.position ?? -1;
  return -1;
}

/** DROPPING_KINDS as indexes in the repair log (RepairLog.hasAnyKind): asked about on every repair. */
const DROPPING = DROPPING_KINDS.map((type) => KIND[type]);

/**
 * After a repair that can drop text, every word inside the JSON's span must be in the value
 * (content-check.ts); when one is not, the loss is reported, at low confidence.
 */
function checkContentKept(scanner: Scanner, text: string, value: unknown): void {
  const log = scanner.log;
  if (scanner.firstRootAt < 0 || log.size === 0 || log.has('dropped_value_text')) return;
  if (!scanner.cutInside && !log.hasAnyKind(DROPPING)) return;
  // Each root's own span: prose between roots (`</tool_call>`) is around the values, not in them.
  // All spans in one pass (content-check.ts): many roots cost their length once.
  const spans = scanner.rootSpans;
  const bounded = spans.length % 2 === 0 ? spans : [...spans, text.length];
  const at = droppedWordAt(text, bounded, value, log.positionOf('removed_truncated_member'));
  // repair: text inside the value's span that the reading left out is reported, never dropped silently
  if (at >= 0) log.record('dropped_value_text', at);
}

function withSchema(
  value: unknown,
  syntaxRepairs: RepairDetail[],
  warnings: Warning[],
  options: RepairOptions | undefined,
  cut?: CutShape,
): RepairResponse {
  if (options?.schema === undefined || options.schema === null) return successResponse(value, syntaxRepairs, [], warnings);
  const mode = options.mode ?? 'strict';
  let outcome;
  if (cut === undefined) outcome = applySchema(value, options.schema, mode);
  else {
    const over = schemaOverCut(value, options.schema, mode, cut);
    outcome = over.outcome;
    if (over.dropped !== null) syntaxRepairs = withDetail(syntaxRepairs, over.dropped);
  }
  const allWarnings = outcome.warnings.length === 0 ? warnings : warnings.concat(outcome.warnings);
  if (outcome.errors.length > 0) return failureResponse(outcome.errors, syntaxRepairs, outcome.repairs, allWarnings);
  return successResponse(outcome.value, syntaxRepairs, outcome.repairs, allWarnings);
}

/** The syntax details with `detail` added: one detail per type, so a detail of its type already there takes its confidence. */
function withDetail(details: RepairDetail[], detail: RepairDetail): RepairDetail[] {
  const same = details.find((d) => d.type === detail.type);
  if (same === undefined) return [...details, detail];
  same.confidence = detail.confidence;
  same.safe = false;
  return details;
}

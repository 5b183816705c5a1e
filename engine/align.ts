// Schema-aligned reading: when the first reading of a reply does not fit the schema, or the reply
// holds other JSON values the first reading passed over, the schema chooses the reading. The
// candidates are the reply read as the schema's root scalar (schema/root-scalar.ts), every fenced
// block and every JSON value in the text; each is repaired towards the schema, costed by the
// liberties it needed, and the cheapest that validates is the answer, reported as
// `selected_candidate`. docs/schema.md "Alignment" describes the rules. Only replies whose first
// reading failed or passed over values pay for this: the first reading stays the default path.
import { tickDeadline } from './deadline.js';
import { makeError, makeWarning } from './error-codes.js';
import { failureResponse, successResponse } from './response.js';
import { FIRST_READING, Scanner, type ProsePolicy } from './scanner/scanner.js';
import { repairDetail } from './scanner/repair-log.js';
import { isTaskBox, leadingReasoningEnd, subscriptCloser } from './scanner/scan-prose.js';
import { applySchema, compiledSchema } from './schema/index.js';
import { readRootScalar, wantsRootScalar } from './schema/root-scalar.js';
import { readLines } from './schema/lines.js';
import { cloneJson } from './schema/value-utils.js';
import type { Confidence, Mode, RepairDetail, RepairResponse } from './types.js';

/** At most this many candidates are read: each costs a scan of the text after it. */
const MAX_CANDIDATES = 8;
const EVERY_VALUE: ProsePolicy = { ...FIRST_READING, inlineFragmentsAreProse: false };
const FENCED_BLOCK = /```[\w+.-]*[ \t]*\n([\s\S]*?)```/g;
const RANK: Record<Confidence | 'n/a', number> = { high: 0, medium: 1, low: 2, 'n/a': 0 };

/**
 * Whether the first reading passed over other JSON values (prose it dropped holds one). A reading
 * that wrapped several values into one array used them all.
 */
export function passedOverValues(response: RepairResponse): boolean {
  for (const d of response.metadata.syntax_repairs) {
    if ((d.type === 'stripped_leading_text' || d.type === 'stripped_trailing_text') && d.confidence !== 'high') return true;
  }
  return false;
}

interface Candidate {
  value: unknown;
  position: number;
  syntax: RepairDetail[];
}

/**
 * A better answer than `first` for `text` under `schema`, or null when `first` stands. `first` is
 * the answer of the first reading (a failure, or a success that passed over other values).
 */
export function alignToSchema(text: string, schema: unknown, mode: Mode, first: RepairResponse): RepairResponse | null {
  const compiled = compiledSchema(schema);
  if (!compiled.ok) return null;
  const root = compiled.model.root;
  if (wantsRootScalar(root)) {
    if (first.success && first.metadata.confidence === 'high') return null;
    const scalar = readRootScalar(text, root);
    if (scalar === null) return null;
    if (scalar.several !== undefined) {
      if (first.success) return null;
      return failureResponse([makeError('SCHEMA_VALIDATION_FAILED',
        `The reply names several allowed values (${scalar.several.map((m) => JSON.stringify(m)).join(', ')}); which one is meant is not guessed.`,
        { field: '' })]);
    }
    const outcome = applySchema(scalar.value, schema, mode);
    if (outcome.errors.length > 0) return null;
    // repair: the reply's text read as the root value the schema asks for
    const detail: RepairDetail = { ...repairDetail(scalar.confidence === 'low' ? 'found_value_in_prose' : 'read_text_as_value', firstNonBlank(text), 1),
      confidence: scalar.confidence, safe: scalar.confidence === 'high' };
    const answer = successResponse(outcome.value, [detail], outcome.repairs, outcome.warnings);
    if (first.success && RANK[answer.metadata.confidence] >= RANK[first.metadata.confidence]) return null;
    return answer;
  }
  if (first.success && !passedOverValues(first)) return null;
  const scored: Array<{ candidate: Candidate; response: RepairResponse; cost: number }> = [];
  for (const candidate of candidates(text)) {
    tickDeadline();
    const outcome = applySchema(cloneJson(candidate.value), schema, mode);
    if (outcome.errors.length > 0) continue;
    const response = successResponse(outcome.value, candidate.syntax, outcome.repairs, outcome.warnings);
    scored.push({ candidate, response, cost: liberties(response) });
  }
  if (scored.length === 0) return null;
  let cheapest = scored[0]!.cost;
  for (const s of scored) if (s.cost < cheapest) cheapest = s.cost;
  const firstCost = first.success ? liberties(first) : Infinity;
  // A first reading that fits and costs less than every other stands.
  if (firstCost < cheapest) return null;
  const best = scored.find((s) => s.cost === cheapest)!;
  const bestText = JSON.stringify(best.response.repaired);
  const others = new Set<string>();
  for (const s of scored) {
    if (s.cost !== cheapest) continue;
    const text = JSON.stringify(s.response.repaired);
    if (text !== bestText) others.add(text);
  }
  if (firstCost === cheapest) {
    const firstText = JSON.stringify(first.repaired);
    if (firstText !== bestText) others.add(firstText);
    // The first reading is the one fit: it stands as it was read.
    if (others.size === 0) return null;
  }
  const m = best.response.metadata;
  // repair: one of several JSON values in the reply chosen because it fits the schema; equal fits are never chosen silently
  const chosen: RepairDetail = { ...repairDetail('selected_candidate', best.candidate.position, 1), confidence: others.size > 0 ? 'low' : 'medium', safe: false };
  const syntax = [chosen, ...m.syntax_repairs];
  const warnings = m.warnings.slice();
  if (others.size > 0) {
    warnings.push(makeWarning('AMBIGUOUS_CANDIDATES',
      `The reply holds ${others.size + 1} different JSON values that fit the schema equally well; the first of them was taken.`,
      { position: best.candidate.position }));
  }
  return successResponse(best.response.repaired, syntax, m.schema_repairs, warnings);
}

/** Every fenced block and every JSON value in the text, in order, at most MAX_CANDIDATES. */
function candidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  const fenced: Array<[number, number]> = [];
  // A draft in the reasoning the reply opens with is never the answer, even when it fits.
  const from = leadingReasoningEnd(text);
  FENCED_BLOCK.lastIndex = from;
  for (let m = FENCED_BLOCK.exec(text); m !== null && out.length < MAX_CANDIDATES; m = FENCED_BLOCK.exec(text)) {
    const at = m.index + m[0].indexOf('\n') + 1;
    fenced.push([m.index, m.index + m[0].length]);
    const read = readValueAt(text.slice(at, at + m[1]!.length), at);
    if (read !== null) out.push(read);
  }
  let i = from;
  // The fences are in order and `at` only grows: one index walks them (a search from the first
  // fence for every bracket made many fences quadratic). Each bracket search starts where the last
  // one found, so the text is searched once in all.
  let f = 0;
  let nextBrace = -2;
  let nextBracket = -2;
  while (out.length < MAX_CANDIDATES) {
    if (nextBrace !== -1 && nextBrace < i) nextBrace = text.indexOf('{', i);
    if (nextBracket !== -1 && nextBracket < i) nextBracket = text.indexOf('[', i);
    const at = nextBrace < 0 ? nextBracket : nextBracket < 0 ? nextBrace : Math.min(nextBrace, nextBracket);
    if (at < 0) break;
    while (f < fenced.length && fenced[f]![1] <= at) f++;
    const block = f < fenced.length && fenced[f]![0] <= at ? fenced[f] : undefined;
    if (block !== undefined) {
      i = block[1];
      continue;
    }
    if (isTaskBox(text, at) || (text.charCodeAt(at) === 0x5b && subscriptCloser(text, at, text.charCodeAt(at - 1)) >= 0)) { // [
      // `- [ ] buy milk`, `arr[0]`: a task list's box, a subscript; no value
      i = at + 1;
      continue;
    }
    const scanner = readOneValue(text, at);
    if (scanner.roots.length === 0 || scanner.tooDeep) break;
    // What the scan made of the text after this value is not this value's reading.
    const syntax = scanner.log.details().filter((d) => d.type !== 'wrapped_multiple_values' && d.type !== 'stripped_trailing_text' &&
      (scanner.firstRootEnd < 0 || d.position! <= scanner.firstRootEnd));
    out.push({ value: scanner.roots[0], position: at, syntax });
    // The next value starts after this one's closer (or the text was read to its end).
    i = scanner.firstRootEnd > at ? scanner.firstRootEnd + 1 : text.length;
  }
  out.sort((x, y) => x.position - y.position);
  return out;
}

/**
 * A scanner that has read the value starting at `at`, fed in growing pieces until that value
 * closed (or the text ended): a candidate costs its own length, not the rest of the reply.
 */
function readOneValue(text: string, at: number): Scanner {
  const scanner = new Scanner(EVERY_VALUE, at);
  let fed = at;
  for (let step = 4096; fed < text.length && scanner.firstRootEnd < 0; step *= 2) {
    const end = Math.min(text.length, fed + step);
    scanner.feed(text.slice(fed, end), end === text.length);
    fed = end;
  }
  return scanner;
}

function readValueAt(body: string, at: number): Candidate | null {
  const scanner = new Scanner(EVERY_VALUE, at);
  scanner.feed(body, true);
  if (scanner.roots.length === 0 || scanner.tooDeep) return null;
  const value = scanner.roots.length === 1 ? scanner.roots[0] : scanner.roots.slice();
  return { value, position: at, syntax: scanner.log.details() };
}

/** What a reading cost: each repair that was not certain, a low one twice. */
export function liberties(response: RepairResponse): number {
  let cost = 0;
  for (const d of response.metadata.repairs_applied) {
    if (d.type === 'stripped_leading_text' || d.type === 'stripped_trailing_text' || d.type === 'removed_markdown_fence') continue;
    cost += d.confidence === 'high' ? 0 : d.confidence === 'medium' ? 1 : 2;
  }
  return cost;
}

function firstNonBlank(text: string): number {
  let k = 0;
  while (k < text.length && text.charCodeAt(k) <= 0x20) k++;
  return k;
}

/**
 * The reply read as `key: value` lines or a markdown list through the schema (schema/lines.ts), when
 * no JSON in it fits: never `high` (a reading of text that is not JSON), null when it does not fit.
 */
export function alignLines(text: string, schema: unknown, mode: Mode): RepairResponse | null {
  const compiled = compiledSchema(schema);
  if (!compiled.ok) return null;
  const read = readLines(text, compiled.model, compiled.model.root);
  if (read === null) return null;
  const outcome = applySchema(read.value, schema, mode);
  if (outcome.errors.length > 0) return null;
  // repair: lines or a list read as the object or array the schema asks for
  const detail: RepairDetail = { ...repairDetail('read_lines_as_value', read.position, 1), confidence: read.doubtful ? 'low' : 'medium', safe: false };
  return successResponse(outcome.value, [detail], outcome.repairs, outcome.warnings);
}

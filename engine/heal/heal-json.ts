// Healing one piece of model JSON for the gateway (a tool call's arguments, a JSON answer): the
// engine's repair, answered as the text a client receives — the canonical JSON of the repaired
// value (JSON.stringify, no whitespace), or the model's text untouched when the repair fails — and
// a report of what changed. The streaming healer (json-healer.ts) sends the same text as deltas.
import { makeError, makeWarning } from '../error-codes.js';
import { Commitment } from './commitment.js';
import { completion } from './complete.js';
import { stringEnd } from './json-text.js';
import { repair } from '../repair.js';
import { repairDetail } from '../scanner/repair-log.js';
import type { Confidence, RepairDetail, RepairError, RepairResponse, Warning } from '../types.js';

export interface HealReport {
  /** The repair produced a value (schema-valid when a schema was given). */
  success: boolean;
  /** The worst confidence of the repairs; `high` when the text was valid as written. */
  confidence: Confidence;
  /** The healed value differs from what the model wrote (whitespace alone is not a repair). */
  was_repaired: boolean;
  syntax_repairs: RepairDetail[];
  schema_repairs: RepairDetail[];
  warnings: Warning[];
  errors: RepairError[];
}

export interface HealResult {
  /** What the client gets: canonical JSON of the repaired value, or the original text on failure. */
  text: string;
  report: HealReport;
}

export interface HealOptions {
  schema?: object;
  /** The upstream cut the answer (`finish_reason: "length"`): confidence is never `high`. */
  truncated?: boolean;
}

export function healJson(text: string, opts?: HealOptions): HealResult {
  const response = repairFor(text, opts?.schema);
  const truncated = opts?.truncated === true;
  // Text that needed no repair, whose names are all distinct and none an array index, is what a
  // stream commits to, member by member: its canonical text starts with any commitment, so the
  // reading a stream would have made (a second pass) is not needed.
  if (response.success && !response.metadata.was_repaired && writtenInOrder(text, response.repaired)) return healed(text, response, truncated);
  const commitment = new Commitment(opts?.schema);
  commitment.read(text);
  return settle(text, response, commitment, truncated, opts?.schema);
}

/**
 * The answer for `text` given the engine's `response` and what a stream of it committed before its
 * end (commitment.ts): the engine's answer when its canonical text starts with what was committed,
 * or, without a schema, the engine's answer spelled on from the committed text (complete.ts: a name
 * like an array index after others, a name given twice). Otherwise the whole-text reading departs
 * from the value the reply began with (a second value after the first): what was committed stands,
 * closed into a value (without a schema), or, with a schema, the model's text untouched (the
 * commitment is a prefix of it) as a failure. Sending nothing twice costs this: the reply's first
 * reading wins.
 */
export function settle(text: string, response: RepairResponse, commitment: Commitment, truncated: boolean, schema: object | undefined): HealResult {
  const committed = commitment.committed;
  const result = healed(text, response, truncated);
  if (result.text.startsWith(committed)) return result;
  if (schema === undefined && response.success) {
    // The answer spelled from what was committed on: its members in the order written (complete.ts).
    const rest = completion(committed, commitment.closer(), response.repaired);
    if (rest !== null) return { text: committed + rest, report: result.report };
  }
  const warning = makeWarning('STREAMED_PREFIX_KEPT');
  const report = result.report;
  report.warnings = report.warnings.concat(warning);
  report.confidence = 'low';
  if (schema !== undefined) {
    report.success = false;
    report.was_repaired = false;
    if (report.errors.length === 0) {
      report.errors = [makeError('UNRECOVERABLE_SYNTAX_ERROR', 'The whole reply reads as another value than the one its text began, which was already sent: the text is passed on as the model wrote it.')];
    }
    return { text, report };
  }
  // repair: the reply's first value, as far as it was read before the reading changed, closed
  report.success = true;
  report.was_repaired = true;
  report.errors = [];
  return { text: committed + commitment.closer(), report };
}

/** The engine's repair of `text`, with the empty-arguments reading (see emptyAsObject). */
export function repairFor(text: string, schema: object | undefined): RepairResponse {
  const response = repair(text, schema === undefined ? undefined : { schema });
  if (response.success || schema === undefined || !isBlank(text)) return response;
  return emptyAsObject(text, schema) ?? response;
}

/** The result a client receives for `text` given the engine's answer `response`. */
export function healed(text: string, response: RepairResponse, truncated: boolean): HealResult {
  const m = response.metadata;
  const report: HealReport = {
    success: response.success,
    confidence: response.success && m.confidence !== 'n/a' ? m.confidence : 'low',
    was_repaired: response.success && m.was_repaired,
    syntax_repairs: m.syntax_repairs,
    schema_repairs: m.schema_repairs,
    warnings: m.warnings,
    errors: m.errors,
  };
  if (truncated) capForTruncation(report);
  return { text: response.success ? JSON.stringify(response.repaired) : text, report };
}

/**
 * An answer the upstream cut at its token limit is never `high`: even when it parses, what the
 * model would have written next is unknown. The engine's TRUNCATED_OUTPUT warning says so (once).
 */
function capForTruncation(report: HealReport): void {
  if (report.confidence === 'high') report.confidence = 'medium';
  if (!report.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT')) {
    report.warnings = report.warnings.concat(makeWarning('TRUNCATED_OUTPUT',
      'The upstream stopped the answer at its output-token limit (finish_reason "length"): the JSON may be cut short.'));
  }
}

/**
 * Empty tool-call arguments (a model calling a tool without parameters often writes nothing): with
 * a schema whose root accepts `{}` exactly as it is (an object with no required members), the
 * arguments are `{}`; otherwise the repair's failure stands. Null when the schema does not accept it.
 */
function emptyAsObject(text: string, schema: object): RepairResponse | null {
  const empty = repair('{}', { schema });
  if (!empty.success || empty.metadata.was_repaired || empty.metadata.warnings.length > 0) return null;
  // repair: empty arguments read as the empty object the schema accepts — a reading, not a certainty: medium
  const detail = repairDetail('empty_input_as_object', 0, 1);
  return {
    success: true,
    repaired: {},
    metadata: {
      ...empty.metadata,
      confidence: detail.confidence,
      was_repaired: true,
      syntax_repairs: [detail],
      repairs_applied: [detail],
    },
  };
}

// A member name JSON.stringify writes before the others (canonical-writer.ts INDEX_NAME).
const INDEX_NAME = /^(?:0|[1-9]\d{0,9})$/;

/**
 * Whether JSON `text` (valid as written) spells `value` with every member where JSON.stringify
 * writes it: no name given twice in an object (JSON.parse keeps the last silently) and none an array
 * index (written first). Counts the text's colons outside strings against the value's members.
 */
function writtenInOrder(text: string, value: unknown): boolean {
  let members = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) stack.push(v[k]);
      continue;
    }
    for (const name in v) {
      if (INDEX_NAME.test(name)) return false;
      members++;
      stack.push((v as Record<string, unknown>)[name]);
    }
  }
  let colons = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22) k = stringEnd(text, k); // "
    else if (c === 0x3a) colons++; // :
  }
  return colons === members;
}

function isBlank(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 0x20) return false; // above space
  return true;
}


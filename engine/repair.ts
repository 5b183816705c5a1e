// Batch repair: valid JSON takes the fast path through JSON.parse; anything else goes through the
// scanner once, as a single final piece — the same scanner a stream drives chunk by chunk.
// A number beyond double range (`1e999`) parses to Infinity, which no JSON can carry: such input
// takes the repair path, where it is reported (replaced_nan). Only text with a three-digit
// exponent can hold one, so other documents pay one regular-expression pass, not a walk.
import { makeError } from './error-codes.js';
import { failureResponse, successResponse } from './response.js';
import { mapPosition, unescapeDocument, type UnescapedDocument } from './escaped-document.js';
import { MAX_DEPTH, Scanner } from './scanner/scanner.js';
import { repairDetail } from './scanner/repair-log.js';
import { applySchema } from './schema/index.js';
import type { RepairDetail, RepairOptions, RepairResponse, Warning } from './types.js';

export function repair(text: string, options?: RepairOptions): RepairResponse {
  if (typeof text !== 'string') {
    return failureResponse([makeError('INVALID_REQUEST', 'The input must be a string.')]);
  }
  let value: unknown;
  let parsed = false;
  if (mayBeJson(text)) {
    try {
      value = JSON.parse(text);
      parsed = !(EXPONENT_300.test(text) && hasNonFinite(value));
    } catch {
      // not valid JSON: repaired below
    }
  }
  if (parsed) return withSchema(value, [], [], options);
  const escaped = unescapeDocument(text);
  const scanner = new Scanner();
  const input = escaped === null ? text : escaped.text;
  const fenceStart = fencedAnswerStart(input);
  scanner.proseUntil = fenceStart;
  scanner.feed(input, true);
  if (scanner.roots.length === 0 && scanner.skippedFragment) {
    // The only JSON was a fragment read as prose (`Here: {"a": 1} hope this helps`): read it as JSON.
    const again = new Scanner();
    again.proseUntil = fenceStart;
    again.proseFragments = false;
    again.feed(input, true);
    return conclude(again, options, escaped);
  }
  if (scanner.roots.length === 0 && !scanner.tooDeep) {
    const tail = input.length > 256 ? input.slice(-256) : input;
    const scalar = FINAL_SCALAR.exec(tail);
    // Prose must come before it (`1\n2` is a list, not an answer), and YAML (`name: Alice\nage: 30`) is not prose.
    if (scalar !== null && /[A-Za-z]/.test(tail.slice(0, scalar.index + 1)) && (tail.match(YAML_LINE)?.length ?? 0) < 2) {
      const at = input.length - scalar[0].length + scalar[0].indexOf(scalar[1]!);
      const end = at + scalar[1]!.length;
      // repair: prose before a scalar answer (`The answer is: 42`, `Result:\ntrue`) is dropped
      const answer = new Scanner();
      answer.base = at;
      answer.log.record('stripped_leading_text', 0);
      answer.feed(input.slice(at, end), true);
      // repair: a period after it is dropped
      if (input.slice(end).trim().length > 0) answer.log.record('stripped_trailing_text', end);
      if (answer.roots.length > 0) return conclude(answer, options, escaped);
    }
  }
  return conclude(scanner, options, escaped);
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
  return firstOk && lastOk;
}

const EXPONENT_300 = /\d[eE][+]?\d{3}/;
const FENCE_TAG = /^(json[c5]?|javascript|js)?$/i;
// A scalar that ends the reply (a period may follow), after a colon or alone on its line: the answer
// of a reply with no object or array in it (`The answer is: 42`, `Sentiment:\n"positive"`). `I have
// 3 cats` is not one. Only the reply's last 256 characters are looked at.
const YAML_LINE = /^[ \t]*[\w-]+:[ \t]*\S/gm;
const FINAL_SCALAR = /(?:[:\n][ \t]*)(-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|true|false|null|True|False|None|"[^"\\\n]{0,200}")[ \t]*\.?\s*$/;


/**
 * Where the answer's fence starts, when a reply opens with prose that holds a `{` or `[` of its own
 * (`Expected shape: {"a": number}`, `return {} if none`, `see [2], then`) before a fenced block:
 * the block is the answer, so the scanner treats those brackets as prose. Only the first fence
 * counts, and only a JSON-tagged one or an untagged one whose content opens with `{` or `[`: a
 * ```bash block after the JSON is not an answer. -1 when no such fence. Batch only (a stream's
 * finalize is repair() of its whole buffer, so both answer alike).
 */
function fencedAnswerStart(text: string): number {
  let a = 0;
  while (a < text.length && text.charCodeAt(a) <= 0x20) a++;
  const first = text.charCodeAt(a);
  if (first === 0x7b || first === 0x5b || first === 0x22 || first === 0x27 || first === 0x60) return -1; // { [ " ' `
  const fence = text.indexOf('```', a);
  if (fence < 0) return -1;
  const before = text.slice(a, fence);
  if (before.indexOf('{') < 0 && before.indexOf('[') < 0) return -1;
  const lineEnd = text.indexOf('\n', fence);
  if (lineEnd < 0) return -1;
  const tag = text.slice(fence + 3, lineEnd).trim();
  if (!FENCE_TAG.test(tag)) return -1;
  if (tag === '') {
    let b = lineEnd;
    while (b < text.length && text.charCodeAt(b) <= 0x20) b++;
    const opener = text.charCodeAt(b);
    if (opener !== 0x7b && opener !== 0x5b) return -1;
  }
  return fence;
}

/** Whether a parsed value holds Infinity or -Infinity anywhere (explicit stack: no recursion). */
function hasNonFinite(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (v === Infinity || v === -Infinity) return true;
    } else if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) for (let k = 0; k < v.length; k++) stack.push(v[k]);
      else for (const k in v) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** Turns a finished scanner into the response (shared with the stream's finalize). */
export function conclude(scanner: Scanner, options: RepairOptions | undefined, escaped: UnescapedDocument | null = null): RepairResponse {
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
  const details = scanner.log.details();
  const warnings = scanner.warnings.slice();
  if (escaped !== null) {
    // Positions were counted in the unescaped text: report them in the caller's input.
    for (const detail of details) detail.position = mapPosition(escaped, detail.position!);
    for (const warning of warnings) if (warning.position !== undefined) warning.position = mapPosition(escaped, warning.position);
    // repair: a document escaped as a whole (`{\"a\": 1}`) is unescaped once before it is read
    details.unshift(repairDetail('unescaped_json_text', escaped.position, 1));
  }
  return withSchema(roots.length === 1 ? roots[0] : roots.slice(), details, warnings, options);
}

function withSchema(
  value: unknown,
  syntaxRepairs: RepairDetail[],
  warnings: Warning[],
  options: RepairOptions | undefined,
): RepairResponse {
  if (options?.schema === undefined || options.schema === null) return successResponse(value, syntaxRepairs, [], warnings);
  const outcome = applySchema(value, options.schema, options.mode ?? 'strict');
  const allWarnings = outcome.warnings.length === 0 ? warnings : warnings.concat(outcome.warnings);
  if (outcome.errors.length > 0) return failureResponse(outcome.errors, syntaxRepairs, outcome.repairs, allWarnings);
  return successResponse(outcome.value, syntaxRepairs, outcome.repairs, allWarnings);
}

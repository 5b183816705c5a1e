// One batch repair request, from body bytes to response text. The same function runs inline on
// the uWS thread (small bodies) and inside a pool worker (large ones, so their JSON.parse,
// repair and serialization stay off the event loop). It never throws.
import { repair } from '../../engine/index.js';
import { makeError } from '../contracts/error-codes.js';
import type { RepairError, RepairResponse, Warning } from '../../engine/types.js';
import type { ContractSetting } from '../config/load-config.js';
import { detectContract, fallbackContract, type Contract } from '../contracts/contract.js';
import { renderError, renderRepairSafely, type Rendered } from '../contracts/render.js';
import { readBatchRequest } from '../contracts/request-validation.js';
import { schemaComplexityError } from '../contracts/schema-complexity.js';
import { addWarnings, countRepairs } from '../contracts/response-metadata.js';
import { describeFault, type AnswerOutcome } from '../observe/request-record.js';

export type BatchEndpoint = 'repair' | 'demo';

export interface RepairTaskRequest {
  endpoint: BatchEndpoint;
  /** The raw request body. Inline runs may pass a view that is valid only during the call. */
  body: Uint8Array;
  /** Added by admission (e.g. QUOTA_EXCEEDED from the accounts layer); null when none. */
  warnings: readonly Warning[] | null;
  /**
   * Inline runs give back (NEEDS_POOL) requests whose schema this gate does not admit: compiling a
   * schema is not bounded by the input size, so a schema not yet compiled here belongs where
   * TASK_TIMEOUT_MS can stop it (see inline-schema-gate.ts). null: every schema is run here (workers).
   */
  schemaGate: SchemaGate | null;
}

export interface SchemaGate {
  admits(schema: unknown): boolean;
}

/** Fixed per server; a worker receives them once, through workerData. */
export interface RepairTaskSettings {
  contract: ContractSetting;
  maxPayloadBytes: number;
  demoMessage: string;
  /** The engine's time limit for one repair (config engineBudgetMs): past it the call answers WORK_DEADLINE_EXCEEDED. Undefined: none. */
  engineBudgetMs?: number;
}

/** What logs, metrics and the accounts layer learn: never the input or the output. */
export interface RepairTaskResult {
  status: number;
  body: string;
  outcome: AnswerOutcome;
  /** Set by pool workers for a request with a schema: what compiling that schema cost (ms). */
  schemaCompileMs?: number;
  /** A compile-only task whose schema is refused (invalid, or over the complexity budget). */
  schemaError?: RepairError;
}

export const NEEDS_POOL = 'needs-pool' as const;

const NEITHER_CONTRACT = 'The request names neither contract: send "raw_output" (envelope contract) or "content" (compact contract).';

function fail(error: RepairError, contract: Contract, settings: RepairTaskSettings, endpoint: BatchEndpoint, inputBytes: number): RepairTaskResult {
  const rendered = renderError(error, contract, endpoint === 'demo' ? settings.demoMessage : null);
  return {
    status: rendered.status,
    body: rendered.body,
    outcome: { contract, errorCode: rendered.errorCode, confidence: null, repairCounts: {}, inputBytes, fault: null },
  };
}

export function runRepairTask(request: RepairTaskRequest, settings: RepairTaskSettings): RepairTaskResult | typeof NEEDS_POOL {
  const { body, endpoint } = request;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(makeError('INVALID_REQUEST', 'The request body is not valid JSON.'), fallbackContract(settings.contract), settings, endpoint, body.byteLength);
  }
  const contract = detectContract(parsed, settings.contract);
  if (contract === null) {
    const message = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? NEITHER_CONTRACT : 'The request body must be a JSON object.';
    return fail(makeError('INVALID_REQUEST', message), 'envelope', settings, endpoint, body.byteLength);
  }
  const batch = readBatchRequest(parsed, contract);
  if (typeof batch === 'string') return fail(makeError('INVALID_REQUEST', batch), contract, settings, endpoint, body.byteLength);
  const inputBytes = Buffer.byteLength(batch.input, 'utf8');
  if (inputBytes > settings.maxPayloadBytes) {
    const message = `The input is ${inputBytes} bytes of UTF-8; the limit is ${settings.maxPayloadBytes}.`;
    return fail(makeError('PAYLOAD_TOO_LARGE', message), contract, settings, endpoint, inputBytes);
  }
  if (batch.schema !== undefined && batch.schema !== null) {
    const tooComplex = schemaComplexityError(batch.schema);
    if (tooComplex !== null) return fail(tooComplex, contract, settings, endpoint, inputBytes);
  }
  if (request.schemaGate !== null && batch.schema !== undefined && batch.schema !== null && !request.schemaGate.admits(batch.schema)) return NEEDS_POOL;

  let response: RepairResponse;
  try {
    const deadline = settings.engineBudgetMs === undefined ? undefined : Date.now() + settings.engineBudgetMs;
    response = repair(batch.input, batch.schema === undefined ? { mode: batch.mode, deadline } : { schema: batch.schema, mode: batch.mode, deadline });
  } catch (error) {
    const result = fail(makeError('INTERNAL_ERROR'), contract, settings, endpoint, inputBytes);
    result.outcome.fault = describeFault(error);
    return result;
  }
  if (request.warnings !== null && request.warnings.length > 0) addWarnings(response, request.warnings);
  let rendered: Rendered;
  try {
    rendered = renderRepairSafely(response, contract, endpoint === 'demo' ? settings.demoMessage : null);
  } catch (error) {
    const result = fail(makeError('INTERNAL_ERROR', 'The repaired value could not be serialized.'), contract, settings, endpoint, inputBytes);
    result.outcome.fault = describeFault(error);
    return result;
  }
  return {
    status: rendered.status,
    body: rendered.body,
    outcome: {
      contract,
      errorCode: rendered.errorCode,
      confidence: response.success && rendered.errorCode === null ? response.metadata.confidence : null,
      repairCounts: countRepairs(response),
      inputBytes,
      fault: null,
    },
  };
}

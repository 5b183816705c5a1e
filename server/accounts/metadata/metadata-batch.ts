// The metadata log's batches: a slice of its ring, column by column, and their conversion into
// storage rows. A batch is typed arrays plus two short lists of distinct strings, so handing one to
// the writer thread is a transfer and a small copy instead of a structured clone of hundreds of
// objects and strings (that clone was most of what the metadata log cost the uWS thread). Every
// value that reaches storage is checked here: nothing in a row can carry input or output text.
import { ERROR_CODES } from '../../contracts/error-codes.js';
import { REPAIR_KINDS } from '../../../engine/repair-kinds.js';
import type { Contract, LoggedConfidence, MetadataRow } from '../storage/accounts-storage.js';

export const ENDPOINTS = [
  'other', '/v1/repair', '/v1/repair/stream/start', '/v1/repair/stream/push', '/v1/repair/stream/finalize',
  '/v1/demo/repair', '/v1/usage', '/v1/chat/completions',
] as const;
export const ENDPOINT_INDEX = new Map<string, number>(ENDPOINTS.map((e, i) => [e, i]));
// The server's route names (server/batch, server/streaming) for the same endpoints.
const ROUTE_PATHS = [
  ['repair', '/v1/repair'], ['demo', '/v1/demo/repair'], ['usage', '/v1/usage'],
  ['stream_start', '/v1/repair/stream/start'], ['stream_push', '/v1/repair/stream/push'],
  ['stream_finalize', '/v1/repair/stream/finalize'], ['chat_completions', '/v1/chat/completions'],
] as const;
for (const [route, path] of ROUTE_PATHS) ENDPOINT_INDEX.set(route, ENDPOINTS.indexOf(path));
/** Route names of the API endpoints, the requests the metadata log is for. */
export const API_ROUTES: readonly string[] = ROUTE_PATHS.map(([route]) => route);

export const CONTRACTS: readonly Contract[] = ['envelope', 'compact'];
export const CONFIDENCES: ReadonlyArray<LoggedConfidence | null> = [null, 'high', 'medium', 'low', 'n/a'];

/** Repair counts are kept in one slot per known repair type, plus `other` for anything else. */
export const COUNT_KINDS: readonly string[] = [...Object.keys(REPAIR_KINDS), 'other'];
export const COUNT_SLOTS = COUNT_KINDS.length;
export const KIND_SLOT = new Map<string, number>(COUNT_KINDS.map((k, i) => [k, i]));
export const OTHER_SLOT = COUNT_SLOTS - 1;

/**
 * A column of strings sent as its distinct values plus one index per row: a batch holds a few key
 * ids and error codes hundreds of times, and cloning each string is what a hand-over cost most.
 */
export interface StringColumn {
  values: Array<string | null>;
  index: Uint16Array;
}

/** `length` rows (at most 65,536); `counts` holds COUNT_SLOTS numbers per row. */
export interface MetadataBatch {
  length: number;
  time: Float64Array;
  keyId: StringColumn;
  endpoint: Uint8Array;
  contract: Uint8Array;
  success: Uint8Array;
  errorCode: StringColumn;
  confidence: Uint8Array;
  counts: Uint32Array;
  inputBytes: Float64Array;
  latencyMs: Float64Array;
  /** The writing log's instance id and the first row's sequence number: each row's rowKey. */
  source: string;
  firstSeq: number;
}

/** Rows `from` to `to` (exclusive) of `source` as a StringColumn. */
export function stringColumn(source: ReadonlyArray<string | null>, from: number, to: number): StringColumn {
  const values: Array<string | null> = [];
  const seen = new Map<string | null, number>();
  const index = new Uint16Array(to - from);
  for (let i = from; i < to; i++) {
    const value = source[i] ?? null;
    let at = seen.get(value);
    if (at === undefined) {
      at = values.length;
      values.push(value);
      seen.set(value, at);
    }
    index[i - from] = at;
  }
  return { values, index };
}

/** The buffers a batch can hand to another thread without copying. */
export function transferablesOf(b: MetadataBatch): ArrayBuffer[] {
  return [b.time, b.keyId.index, b.endpoint, b.contract, b.success, b.errorCode.index, b.confidence, b.counts, b.inputBytes, b.latencyMs]
    .map((column) => column.buffer as ArrayBuffer);
}

// Only key ids we issue (newKeyId in api-key.ts, `env_` + 16 hex in server/accounts/key-store.ts) are
// logged; anything else (a raw key passed by mistake) becomes null.
const KEY_ID_SHAPE = /^(?:key_[0-9A-Za-z]{16}|env_[0-9a-f]{16})$/;
/** Outcomes the server reports that are not error codes. */
const OTHER_OUTCOMES = new Set(['aborted']);

export function rowsOfBatch(b: MetadataBatch): MetadataRow[] {
  const rows: MetadataRow[] = new Array(b.length);
  for (let i = 0; i < b.length; i++) {
    rows[i] = {
      time: b.time[i]!,
      keyId: sanitizeKeyId(b.keyId.values[b.keyId.index[i]!] ?? null),
      endpoint: ENDPOINTS[b.endpoint[i]!] ?? 'other',
      contract: CONTRACTS[b.contract[i]!] ?? 'envelope',
      success: b.success[i] === 1,
      errorCode: sanitizeErrorCode(b.errorCode.values[b.errorCode.index[i]!] ?? null),
      confidence: CONFIDENCES[b.confidence[i]!] ?? null,
      repairCounts: countsOf(b.counts, i * COUNT_SLOTS),
      inputBytes: finiteOrZero(b.inputBytes[i]!),
      latencyMs: finiteOrZero(b.latencyMs[i]!),
      rowKey: `${b.source}:${b.firstSeq + i}`,
    };
  }
  return rows;
}

function countsOf(slots: Uint32Array, base: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let k = 0; k < COUNT_SLOTS; k++) {
    const n = slots[base + k]!;
    if (n > 0) counts[COUNT_KINDS[k]!] = n;
  }
  return counts;
}

function sanitizeKeyId(keyId: string | null): string | null {
  return keyId !== null && KEY_ID_SHAPE.test(keyId) ? keyId : null;
}

function sanitizeErrorCode(code: string | null): string | null {
  if (code === null) return null;
  return Object.hasOwn(ERROR_CODES, code) || OTHER_OUTCOMES.has(code) ? code : 'UNKNOWN_REPAIR_ERROR';
}

function finiteOrZero(n: number): number {
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

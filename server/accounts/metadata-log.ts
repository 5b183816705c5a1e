// The request metadata log (spec "What the service does" 6): one row per request with counts,
// codes, sizes and timings, and nothing that could hold input or output text. record() copies
// into a fixed-size columnar ring (no I/O, O(1)); flush() writes batches in one transaction each
// from a timer or after `batchRows` rows, off the request path. When storage is stuck the ring
// overwrites its oldest rows and counts them as dropped instead of growing.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ERROR_CODES } from '../../engine/error-codes.js';
import { REPAIR_KINDS } from '../../engine/repair-kinds.js';
import type { RepairDetail } from '../../engine/types.js';
import type { Clock } from './clock.js';
import type { AccountsStorage, Contract, LoggedConfidence, MetadataRow } from './storage.js';

export const ENDPOINTS = [
  'other', '/v1/repair', '/v1/repair/stream/start', '/v1/repair/stream/push', '/v1/repair/stream/finalize',
  '/v1/demo/repair', '/v1/usage',
] as const;
const ENDPOINT_INDEX = new Map<string, number>(ENDPOINTS.map((e, i) => [e, i]));
// The server's route names (server/routes) for the same endpoints.
for (const [route, path] of [['repair', '/v1/repair'], ['demo', '/v1/demo/repair'], ['usage', '/v1/usage']] as const) {
  ENDPOINT_INDEX.set(route, ENDPOINTS.indexOf(path));
}
const CONTRACTS: readonly Contract[] = ['envelope', 'compact'];
const CONFIDENCES: ReadonlyArray<LoggedConfidence | null> = [null, 'high', 'medium', 'low', 'n/a'];
const CONFIDENCE_INDEX = new Map<LoggedConfidence | null, number>(CONFIDENCES.map((c, i) => [c, i]));
// Only key ids we issue (newKeyId here, `env_` + 16 hex in server/auth/key-store.ts) are logged;
// anything else (a raw key passed by mistake) becomes null.
const KEY_ID_SHAPE = /^(?:key_[0-9A-Za-z]{16}|env_[0-9a-f]{16})$/;
/** Outcomes the server reports that are not error codes. */
const OTHER_OUTCOMES = new Set(['aborted']);
const NO_REPAIRS: Readonly<Record<string, number>> = Object.freeze({});

/** What the server passes per request. record() copies it, so one object may be reused. */
export interface MetadataEntry {
  /** Defaults to the clock's now. */
  time?: number;
  keyId: string | null;
  /** One of ENDPOINTS or a server route name (`repair`, `demo`, `usage`); anything else is `other`. */
  endpoint: string;
  contract: Contract;
  success: boolean;
  /** A code from engine/error-codes.ts or `aborted`; anything else is logged as UNKNOWN_REPAIR_ERROR. */
  errorCode: string | null;
  confidence: LoggedConfidence | null;
  /** From repairCountsOf(); kept by reference until flushed, so do not mutate it afterwards. */
  repairCounts: Readonly<Record<string, number>> | null;
  inputBytes: number;
  latencyMs: number;
}

/** Repair counts by type from a response's metadata: only type names and numbers. */
export function repairCountsOf(metadata: {
  syntax_repairs?: readonly RepairDetail[]; schema_repairs?: readonly RepairDetail[];
}): Readonly<Record<string, number>> {
  const syntax = metadata.syntax_repairs ?? [];
  const schema = metadata.schema_repairs ?? [];
  if (syntax.length === 0 && schema.length === 0) return NO_REPAIRS;
  const counts: Record<string, number> = {};
  for (const list of [syntax, schema]) {
    for (const d of list) counts[d.type] = (counts[d.type] ?? 0) + (d.count ?? 1);
  }
  return counts;
}

export interface MetadataLogOptions {
  /** An AccountsStorage, or the ThreadedMetadataWriter (metadata-writer.ts). */
  storage: Pick<AccountsStorage, 'insertMetadata'>;
  clock: Clock;
  flushIntervalMs?: number;
  /** Rows per transaction; reaching it also schedules a flush. */
  batchRows?: number;
  /** Ring size: rows held while storage is slow or stuck. */
  capacity?: number;
  onError?: (error: unknown) => void;
}

export class MetadataLog {
  readonly flushIntervalMs: number;
  readonly batchRows: number;
  readonly capacity: number;
  readonly #storage: Pick<AccountsStorage, 'insertMetadata'>;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  // Columns of the ring; row `seq` lives at index seq % capacity.
  readonly #time: Float64Array;
  readonly #keyId: Array<string | null>;
  readonly #endpoint: Uint8Array;
  readonly #contract: Uint8Array;
  readonly #success: Uint8Array;
  readonly #errorCode: Array<string | null>;
  readonly #confidence: Uint8Array;
  readonly #counts: Array<Readonly<Record<string, number>>>;
  readonly #inputBytes: Float64Array;
  readonly #latency: Float64Array;
  #first = 0; // seq of the oldest unwritten row
  #next = 0; // seq the next row gets
  #dropped = 0;
  #written = 0;
  #flushing: Promise<number> | undefined;
  #soonScheduled = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: MetadataLogOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.#onError = options.onError ?? (() => {});
    this.flushIntervalMs = options.flushIntervalMs ?? 1_000;
    this.batchRows = options.batchRows ?? 500;
    this.capacity = options.capacity ?? 50_000;
    const n = this.capacity;
    this.#time = new Float64Array(n);
    this.#keyId = new Array<string | null>(n).fill(null);
    this.#endpoint = new Uint8Array(n);
    this.#contract = new Uint8Array(n);
    this.#success = new Uint8Array(n);
    this.#errorCode = new Array<string | null>(n).fill(null);
    this.#confidence = new Uint8Array(n);
    this.#counts = new Array<Readonly<Record<string, number>>>(n).fill(NO_REPAIRS);
    this.#inputBytes = new Float64Array(n);
    this.#latency = new Float64Array(n);
  }

  /** Rows waiting to be written. */
  get pending(): number { return this.#next - this.#first; }
  /** Rows overwritten before they could be written (storage stuck), since start. */
  get dropped(): number { return this.#dropped; }
  get written(): number { return this.#written; }

  record(entry: MetadataEntry): void {
    if (this.#next - this.#first === this.capacity) {
      this.#first++;
      this.#dropped++;
    }
    const i = this.#next++ % this.capacity;
    this.#time[i] = entry.time ?? this.#clock.now();
    this.#keyId[i] = entry.keyId; // key id and error code are checked at flush, off the request path
    this.#endpoint[i] = ENDPOINT_INDEX.get(entry.endpoint) ?? 0;
    this.#contract[i] = entry.contract === 'compact' ? 1 : 0;
    this.#success[i] = entry.success ? 1 : 0;
    this.#errorCode[i] = entry.errorCode;
    this.#confidence[i] = CONFIDENCE_INDEX.get(entry.confidence) ?? 0;
    this.#counts[i] = entry.repairCounts ?? NO_REPAIRS;
    this.#inputBytes[i] = entry.inputBytes;
    this.#latency[i] = entry.latencyMs;
    if (!this.#soonScheduled && this.#next - this.#first >= this.batchRows) {
      this.#soonScheduled = true;
      setImmediate(() => {
        this.#soonScheduled = false;
        this.flush().catch(this.#onError);
      }); // not unref'd: an unref'd immediate can leave the drain's next turn waiting for a timer
    }
  }

  /** Writes every pending row, `batchRows` per transaction. Resolves to the number written. */
  flush(): Promise<number> {
    this.#flushing ??= this.#drain().finally(() => { this.#flushing = undefined; });
    return this.#flushing;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => { this.flush().catch(this.#onError); }, this.flushIntervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and writes what is buffered (shutdown). */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #drain(): Promise<number> {
    let total = 0;
    while (this.#next > this.#first) {
      const start = this.#first;
      const end = Math.min(this.#next, start + this.batchRows);
      const rows: MetadataRow[] = [];
      for (let seq = start; seq < end; seq++) rows.push(this.#row(seq % this.capacity));
      await this.#storage.insertMetadata(rows);
      // Rows overwritten while the write was in flight were counted as dropped; skip past them.
      this.#first = Math.max(this.#first, end);
      this.#written += rows.length;
      total += rows.length;
      if (this.#next > this.#first) await nextTurn(); // let requests run between batches
    }
    return total;
  }

  #row(i: number): MetadataRow {
    return {
      time: this.#time[i]!,
      keyId: sanitizeKeyId(this.#keyId[i]!),
      endpoint: ENDPOINTS[this.#endpoint[i]!]!,
      contract: CONTRACTS[this.#contract[i]!]!,
      success: this.#success[i] === 1,
      errorCode: sanitizeErrorCode(this.#errorCode[i]!),
      confidence: CONFIDENCES[this.#confidence[i]!]!,
      repairCounts: sanitizeCounts(this.#counts[i]!),
      inputBytes: finiteOrZero(this.#inputBytes[i]!),
      latencyMs: finiteOrZero(this.#latency[i]!),
    };
  }
}

function sanitizeKeyId(keyId: string | null): string | null {
  return keyId !== null && KEY_ID_SHAPE.test(keyId) ? keyId : null;
}

function sanitizeErrorCode(code: string | null): string | null {
  if (code === null) return null;
  return Object.hasOwn(ERROR_CODES, code) || OTHER_OUTCOMES.has(code) ? code : 'UNKNOWN_REPAIR_ERROR';
}

/** Only known repair type names and whole counts reach storage; anything else is summed as `other`. */
function sanitizeCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  const clean: Record<string, number> = {};
  for (const [type, n] of Object.entries(counts)) {
    const value = Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
    if (value === 0) continue;
    const name = Object.hasOwn(REPAIR_KINDS, type) ? type : 'other';
    clean[name] = (clean[name] ?? 0) + value;
  }
  return clean;
}

function finiteOrZero(n: number): number {
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

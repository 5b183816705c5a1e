// The request metadata log (spec "What the service does" 6): one row per request with counts,
// codes, sizes and timings, and nothing that could hold input or output text. record() copies
// into a fixed-size columnar ring (no I/O, O(1)); batches of `batchRows` rows are written as soon
// as they are full, the rest by a timer, one transaction each, off the request path. When storage
// is stuck the ring overwrites its oldest rows and counts them as dropped instead of growing.
import { FlushTimer } from '../flush-timer.js';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RepairDetail } from '../../../engine/types.js';
import type { Clock } from '../clock.js';
import {
  CONFIDENCES, COUNT_SLOTS, ENDPOINT_INDEX, KIND_SLOT, OTHER_SLOT, rowsOfBatch, stringColumn, type MetadataBatch,
} from './metadata-batch.js';
import type { AccountsStorage, Contract, LoggedConfidence, MetadataRow } from '../storage/accounts-storage.js';

export { API_ROUTES, ENDPOINTS } from './metadata-batch.js';

const CONFIDENCE_INDEX = new Map<LoggedConfidence | null, number>(CONFIDENCES.map((c, i) => [c, i]));
const NO_REPAIRS: Readonly<Record<string, number>> = Object.freeze({});
const MAX_COUNT = 0xffff_ffff;

/**
 * What the server passes per request: a MetadataRow whose time defaults to the clock's now and whose
 * repair counts may be absent. `endpoint` is one of ENDPOINTS or a server route name (anything else
 * is `other`); `errorCode` a registry code or `aborted` (anything else is UNKNOWN_REPAIR_ERROR).
 * record() copies it, so one object may be reused.
 */
export interface MetadataEntry extends Omit<MetadataRow, 'time' | 'repairCounts'> {
  time?: number;
  /** From repairCountsOf(): type -> count. Copied into fixed slots by record(). */
  repairCounts: Readonly<Record<string, number>> | null;
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

/** Where batches go: any AccountsStorage, or the ThreadedMetadataWriter, which takes them whole. */
export interface MetadataLogSink extends Pick<AccountsStorage, 'insertMetadata'> {
  insertMetadataBatch?(batch: MetadataBatch): Promise<void>;
}

export interface MetadataLogOptions {
  /** An AccountsStorage, or the ThreadedMetadataWriter (metadata-writer.ts). */
  storage: MetadataLogSink;
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
  readonly #storage: MetadataLogSink;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  // Columns of the ring; row `seq` lives at index seq % capacity. Repair counts take COUNT_SLOTS
  // numbers per row, so no per-request object is kept alive (and promoted by the GC) until flushed.
  readonly #time: Float64Array;
  readonly #keyId: Array<string | null>;
  readonly #endpoint: Uint8Array;
  readonly #contract: Uint8Array;
  readonly #success: Uint8Array;
  readonly #errorCode: Array<string | null>;
  readonly #confidence: Uint8Array;
  readonly #counts: Uint32Array;
  readonly #inputBytes: Float64Array;
  readonly #latency: Float64Array;
  // Names this log's rows in storage (rowKey = source:seq), so a batch written again after a write
  // that timed out but committed is not stored twice.
  readonly #source = randomUUID();
  #first = 0; // seq of the oldest unwritten row
  #next = 0; // seq the next row gets
  #dropped = 0;
  #written = 0;
  #flushing: Promise<number> | undefined;
  #flushingAll = false;
  #soonScheduled = false;
  readonly #timer: FlushTimer;

  constructor(options: MetadataLogOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.#onError = options.onError ?? (() => {});
    this.flushIntervalMs = options.flushIntervalMs ?? 1_000;
    this.#timer = new FlushTimer(() => this.flush(), this.flushIntervalMs, (error) => this.#onError(error));
    this.batchRows = Math.min(options.batchRows ?? 500, 65_536); // a batch's string indexes are 16-bit
    this.capacity = options.capacity ?? 50_000;
    const n = this.capacity;
    this.#time = new Float64Array(n);
    this.#keyId = new Array<string | null>(n).fill(null);
    this.#endpoint = new Uint8Array(n);
    this.#contract = new Uint8Array(n);
    this.#success = new Uint8Array(n);
    this.#errorCode = new Array<string | null>(n).fill(null);
    this.#confidence = new Uint8Array(n);
    this.#counts = new Uint32Array(n * COUNT_SLOTS);
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
    this.#recordCounts(i * COUNT_SLOTS, entry.repairCounts);
    this.#inputBytes[i] = entry.inputBytes;
    this.#latency[i] = entry.latencyMs;
    if (!this.#soonScheduled && this.#next - this.#first >= this.batchRows) {
      this.#soonScheduled = true;
      setImmediate(() => {
        this.#soonScheduled = false;
        this.#run(false).catch(this.#onError);
      }); // not unref'd: an unref'd immediate can leave the drain's next turn waiting for a timer
    }
  }

  /** Only known repair type names get a slot (anything else is summed as `other`), whole counts only. */
  #recordCounts(base: number, counts: Readonly<Record<string, number>> | null): void {
    const slots = this.#counts;
    slots.fill(0, base, base + COUNT_SLOTS);
    if (counts === null) return;
    for (const type in counts) {
      const n = counts[type]!;
      if (!(n >= 1) || !Number.isFinite(n)) continue;
      const at = base + (KIND_SLOT.get(type) ?? OTHER_SLOT);
      slots[at] = Math.min(MAX_COUNT, slots[at]! + Math.floor(n));
    }
  }

  /** Writes every row pending now, `batchRows` per transaction. Resolves to the number written. */
  flush(): Promise<number> {
    return this.#run(true);
  }

  /**
   * Rows that arrive while a batch is being written wait for the next full batch or the next
   * flush, instead of leaving in a trickle of small batches (each pays a thread hand-over and a
   * transaction): `all` writes the rows pending when it starts, otherwise full batches only.
   */
  #run(all: boolean): Promise<number> {
    const running = this.#flushing;
    if (running !== undefined) {
      if (!all || this.#flushingAll) return running;
      const afterwards = (): Promise<number> => this.#run(true);
      return running.then(afterwards, afterwards);
    }
    this.#flushingAll = all;
    const drain = this.#drain(all).finally(() => { this.#flushing = undefined; });
    this.#flushing = drain;
    return drain;
  }

  start(): void {
    this.#timer.start();
  }

  /** Stops the timer and writes what is buffered (shutdown). */
  async close(): Promise<void> {
    this.#timer.stop();
    await this.flush();
  }

  async #drain(all: boolean): Promise<number> {
    const until = this.#next;
    const more = (): boolean => (all ? this.#first < until : this.#next - this.#first >= this.batchRows);
    let total = 0;
    while (more()) {
      const start = this.#first;
      const at = start % this.capacity;
      // A batch never wraps around the ring, so each column is one contiguous slice.
      const length = Math.min((all ? until : this.#next) - start, this.batchRows, this.capacity - at);
      const batch = this.#slice(at, length, start);
      if (this.#storage.insertMetadataBatch !== undefined) await this.#storage.insertMetadataBatch(batch);
      else await this.#storage.insertMetadata(rowsOfBatch(batch));
      // Rows overwritten while the write was in flight were counted as dropped; skip past them.
      this.#first = Math.max(this.#first, start + length);
      this.#written += length;
      total += length;
      if (more()) await nextTurn(); // let requests run between batches
    }
    return total;
  }

  /** Copies of the columns (the ring keeps being written while the batch is in flight). */
  #slice(at: number, length: number, firstSeq: number): MetadataBatch {
    const end = at + length;
    return {
      length,
      time: this.#time.slice(at, end),
      keyId: stringColumn(this.#keyId, at, end),
      endpoint: this.#endpoint.slice(at, end),
      contract: this.#contract.slice(at, end),
      success: this.#success.slice(at, end),
      errorCode: stringColumn(this.#errorCode, at, end),
      confidence: this.#confidence.slice(at, end),
      counts: this.#counts.slice(at * COUNT_SLOTS, end * COUNT_SLOTS),
      inputBytes: this.#inputBytes.slice(at, end),
      latencyMs: this.#latency.slice(at, end),
      source: this.#source,
      firstSeq,
    };
  }
}

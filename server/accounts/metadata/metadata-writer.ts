// Where metadata rows and retention deletes go. By default a dedicated worker thread with its own
// SQLite connection (metadata-writer-thread.ts): the uWS thread only hands over a batch of columns
// (a transfer) instead of inserting it (2–6 µs a row here) and never waits on a database lock. Any
// AccountsStorage is also a MetadataSink, for other backends and for tests.
import { Worker } from 'node:worker_threads';
import { transferablesOf, type MetadataBatch } from './metadata-batch.js';
import type { AccountsStorage, MetadataRow } from '../storage/accounts-storage.js';

export type MetadataSink = Pick<AccountsStorage, 'insertMetadata' | 'deleteMetadataOlderThan'> & {
  insertMetadataBatch?(batch: MetadataBatch): Promise<void>;
  close?(): Promise<void>;
};

export type WriterRequest =
  | { op: 'insert'; id: number; rows: readonly MetadataRow[] }
  | { op: 'insertBatch'; id: number; batch: MetadataBatch }
  | { op: 'delete'; id: number; cutoff: number; limit: number }
  | { op: 'close'; id: number };
export type WriterReply =
  | { id: number; ok: true; value: number }
  | { id: number; ok: false; message: string; code: string | null };

interface Pending { resolve(value: number): void; reject(error: Error): void }

// Under tap the sources run as .ts; built, as .js beside this file.
const THREAD_URL = new URL(`./metadata-writer-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export interface ThreadedMetadataWriterOptions {
  dataDir: string;
  /** The thread may wait for a lock: it holds up nobody. */
  busyTimeoutMs?: number;
}

export class ThreadedMetadataWriter implements MetadataSink {
  readonly #options: Required<ThreadedMetadataWriterOptions>;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: ThreadedMetadataWriterOptions) {
    this.#options = { busyTimeoutMs: 5_000, ...options };
  }

  async insertMetadata(rows: readonly MetadataRow[]): Promise<void> {
    if (rows.length > 0) await this.#call({ op: 'insert', id: 0, rows });
  }

  /** The MetadataLog's path: the batch's columns are transferred, and turned into rows in the thread. */
  async insertMetadataBatch(batch: MetadataBatch): Promise<void> {
    if (batch.length > 0) await this.#call({ op: 'insertBatch', id: 0, batch }, transferablesOf(batch));
  }

  deleteMetadataOlderThan(cutoff: number, limit: number): Promise<number> {
    return this.#call({ op: 'delete', id: 0, cutoff, limit });
  }

  /** Lets queued writes finish, then ends the thread (never terminate(): see docs/design.md "uWS rules"). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#worker === undefined) return;
    const worker = this.#worker;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await this.#send({ op: 'close', id: 0 });
    worker.ref(); // the reply unref'd it; stay up until the thread has really ended
    await exited;
  }

  #call(request: WriterRequest, transfer: ArrayBuffer[] = []): Promise<number> {
    if (this.#closed) return Promise.reject(new Error('metadata writer is closed'));
    return this.#send(request, transfer);
  }

  #send(request: WriterRequest, transfer: ArrayBuffer[] = []): Promise<number> {
    const worker = this.#worker ?? this.#spawn();
    const id = this.#nextId++;
    request.id = id;
    return new Promise<number>((resolve, reject) => {
      if (this.#pending.size === 0) worker.ref(); // keep the process up until the write is done
      this.#pending.set(id, { resolve, reject });
      worker.postMessage(request, transfer);
    });
  }

  #spawn(): Worker {
    const worker = new Worker(THREAD_URL, {
      workerData: { dataDir: this.#options.dataDir, busyTimeoutMs: this.#options.busyTimeoutMs },
    });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const pending = this.#pending.get(reply.id);
      if (pending === undefined) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(Object.assign(new Error(reply.message), { code: reply.code ?? undefined }));
    });
    // A thread that dies fails what it held; the next write starts a new one.
    const fail = (error: Error): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`metadata writer thread exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}

// Deletes request metadata older than the retention period (spec: 90 days). Runs on an unref'd
// timer, in chunks with a turn of the event loop between them, so a large backlog never blocks
// requests for long.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { AccountsStorage } from '../storage/accounts-storage.js';

export const METADATA_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

export interface RetentionJobOptions {
  storage: Pick<AccountsStorage, 'deleteMetadataOlderThan'>;
  clock: Clock;
  retentionMs?: number;
  intervalMs?: number;
  chunkRows?: number;
  onError?: (error: unknown) => void;
}

export class RetentionJob {
  readonly retentionMs: number;
  readonly intervalMs: number;
  readonly chunkRows: number;
  readonly #storage: Pick<AccountsStorage, 'deleteMetadataOlderThan'>;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(options: RetentionJobOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.retentionMs = options.retentionMs ?? METADATA_RETENTION_MS;
    this.intervalMs = options.intervalMs ?? 60 * 60 * 1000;
    this.chunkRows = options.chunkRows ?? 5_000;
    this.#onError = options.onError ?? (() => {});
  }

  /** Deletes every row older than now - retention. Returns how many. */
  async runOnce(): Promise<number> {
    if (this.#running) return 0;
    this.#running = true;
    try {
      const cutoff = this.#clock.now() - this.retentionMs;
      let total = 0;
      for (;;) {
        const deleted = await this.#storage.deleteMetadataOlderThan(cutoff, this.chunkRows);
        total += deleted;
        if (deleted < this.chunkRows) return total;
        await nextTurn();
      }
    } finally {
      this.#running = false;
    }
  }

  start(): void {
    if (this.#timer !== undefined) return;
    const run = (): void => { this.runOnce().catch(this.#onError); };
    this.#timer = setInterval(run, this.intervalMs);
    this.#timer.unref();
    setImmediate(run); // also once at start: a server that was down still cleans up
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

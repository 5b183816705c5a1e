// Monthly repair quotas. Counts live in memory (one small object per account used this month:
// KeyRecord.accountId, a console user or an operator key; console keys also alone) and are
// flushed to storage as batched deltas; after each flush the totals are re-read so several server
// processes sharing one database converge. Months are UTC calendar months.
import { randomUUID } from 'node:crypto';
import { FlushTimer } from './flush-timer.js';
import type { Clock } from './clock.js';
import type { KeyRecord } from './key-store.js';
import type { AccountsStorage, UsageDelta } from './storage/accounts-storage.js';
import { TIERS, type Tier } from '../config/tiers.js';

export interface UsageReport {
  tier: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  count: number;
  quota: number | null;
  remaining: number | null;
  /** ISO time of the next UTC month's start. */
  resets_at: string;
  /** Tiers billed for overage only (team). */
  overage?: number;
  overage_cost_usd?: number;
}

interface Counter { total: number; pending: number }

export function monthOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 7);
}

export function nextMonthStart(epochMs: number): number {
  const d = new Date(epochMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export interface QuotaTrackerOptions {
  storage: AccountsStorage;
  clock: Clock;
  flushIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export class QuotaTracker {
  readonly #storage: AccountsStorage;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  readonly flushIntervalMs: number;
  readonly #timer: FlushTimer;
  #counters = new Map<string, Counter>();
  #month: string;
  #monthEnd: number;
  /** Deltas of a month that ended before they were flushed. */
  #carried: UsageDelta[] = [];
  /**
   * Batches whose write failed, each with the id it was first sent under. A write can fail here
   * (a timeout) after the database committed it: sent again under the same id, the storage adds
   * it at most once, so a stalled database never makes the count exceed what was served.
   */
  #unsent: Array<{ id: string; deltas: UsageDelta[] }> = [];
  #flushing = false;

  constructor(options: QuotaTrackerOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.flushIntervalMs = options.flushIntervalMs ?? 1_000;
    this.#onError = options.onError ?? (() => {});
    this.#timer = new FlushTimer(() => this.flush(), this.flushIntervalMs, (error) => this.#onError(error));
    const now = this.#clock.now();
    this.#month = monthOf(now);
    this.#monthEnd = nextMonthStart(now);
  }

  /** Loads this month's stored counts (start-up). */
  async load(): Promise<void> {
    this.#rollIfNeeded();
    await this.#syncTotals(this.#month);
  }

  /** Repairs counted for `keyId` this month (stored + not yet flushed). */
  count(keyId: string): number {
    this.#rollIfNeeded();
    return this.#counters.get(keyId)?.total ?? 0;
  }

  /** True once a key with a quota has used all of it this month. O(1). */
  isExceeded(keyId: string, tier: Tier): boolean {
    return tier.monthlyQuota !== null && this.count(keyId) >= tier.monthlyQuota;
  }

  /** Counts `n` repairs for `keyId`. O(1); storage is written by flush(). */
  record(keyId: string, n = 1): void {
    this.#rollIfNeeded();
    const c = this.#counters.get(keyId);
    if (c === undefined) {
      this.#counters.set(keyId, { total: n, pending: n });
    } else {
      c.total += n;
      c.pending += n;
    }
  }

  usageFor(record: KeyRecord, now: number = this.#clock.now()): UsageReport {
    this.#rollIfNeeded();
    const tier = TIERS[record.tier];
    const month = monthOf(now);
    const count = month === this.#month ? this.count(record.accountId) : 0;
    const quota = tier.monthlyQuota;
    const report: UsageReport = {
      tier: tier.name,
      month,
      count,
      quota,
      remaining: quota === null ? null : Math.max(0, quota - count),
      resets_at: new Date(nextMonthStart(now)).toISOString(),
    };
    if (tier.overage === 'billed' && quota !== null && tier.overageUsdPer1k !== null) {
      report.overage = Math.max(0, count - quota);
      report.overage_cost_usd = Math.round(report.overage * tier.overageUsdPer1k * 100 / 1000) / 100;
    }
    return report;
  }

  /** Writes the deltas counted since the last flush in one batch, then re-reads the totals. */
  async flush(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    this.#rollIfNeeded();
    const month = this.#month;
    const fresh = this.#carried;
    this.#carried = [];
    for (const [keyId, c] of this.#counters) {
      if (c.pending === 0) continue;
      fresh.push({ keyId, month, count: c.pending });
      c.pending = 0;
    }
    const batches = this.#unsent;
    this.#unsent = [];
    if (fresh.length > 0) batches.push({ id: randomUUID(), deltas: fresh });
    try {
      for (let i = 0; i < batches.length; i++) {
        try {
          await this.#storage.addMonthlyUsage(batches[i]!.deltas, batches[i]!.id);
        } catch (error) {
          // Written whole or not at all, and perhaps written after all (a timeout): keep this batch
          // and the ones after it, each under its id, for the next flush.
          this.#unsent.push(...batches.slice(i));
          throw error;
        }
      }
      // Totals already include these deltas; re-reading adds other processes' counts.
      if (this.#month === month) await this.#syncTotals(month);
    } finally {
      this.#flushing = false;
    }
  }

  /** Flushes on an unref'd timer. */
  start(): void {
    this.#timer.start();
  }

  async close(): Promise<void> {
    this.#timer.stop();
    await this.flush();
  }

  async #syncTotals(month: string): Promise<void> {
    const stored = await this.#storage.loadMonthlyUsage(month);
    if (this.#month !== month) return;
    for (const [keyId, count] of stored) {
      const c = this.#counters.get(keyId);
      if (c === undefined) this.#counters.set(keyId, { total: count, pending: 0 });
      else c.total = count + c.pending;
    }
  }

  #rollIfNeeded(): void {
    const now = this.#clock.now();
    if (now < this.#monthEnd) return;
    for (const [keyId, c] of this.#counters) {
      if (c.pending > 0) this.#carried.push({ keyId, month: this.#month, count: c.pending });
    }
    this.#counters = new Map();
    this.#month = monthOf(now);
    this.#monthEnd = nextMonthStart(now);
  }
}

// The accounts layer assembled: storage, the cached key store, keyed admission (rate limit +
// quota), the demo limiter, the metadata log and its retention job, with their background timers.
// The server builds one at start-up, serves requests from its in-memory parts, and closes it on
// shutdown (which flushes counters and metadata).
import { CachedKeyStore } from './cached-key-store.js';
import { systemClock, type Clock } from './clock.js';
import { DemoLimiter, type DemoRateLimiter } from './demo-limiter.js';
import { KeyAdmission } from './key-admission.js';
import { MetadataLog } from './metadata/metadata-log.js';
import { QuotaTracker, type UsageReport } from './quota.js';
import { RateLimiter, type KeyRateLimiter } from './rate-limiter.js';
import { RetentionJob } from './metadata/retention.js';
import { SqliteStorage } from './storage/sqlite-storage.js';
import { ThreadedMetadataWriter, type MetadataSink } from './metadata/metadata-writer.js';
import type { SeedKey } from '../config/env-parsers.js';
import type { AccountsStorage, SeedOutcome } from './storage/accounts-storage.js';
import { limitHeaders } from './request-admission.js';
import type { HeaderList } from '../http/response-writer.js';
import type { KeyRecord } from './key-store.js';
import { metricSample } from '../observe/metrics.js';

export interface AccountsOptions {
  dataDir: string;
  apiKeys?: readonly SeedKey[];
  demoLimitPerHour?: number;
  clock?: Clock;
  /** Another AccountsStorage (open-storage.ts: PostgreSQL with DATABASE_URL); default SQLite in dataDir. */
  storage?: AccountsStorage;
  /** Limiters shared between nodes (shared-rate-limiter.ts, shared-demo-limiter.ts with REDIS_URL); default in-process ones. */
  limiter?: KeyRateLimiter;
  demo?: DemoRateLimiter;
  /** Background failures (a locked database, a full disk); the request path carries on. */
  onError?: (error: unknown) => void;
  keyRefreshMs?: number;
  flushIntervalMs?: number;
  /**
   * Write metadata rows and run retention deletes on a worker thread with its own connection
   * (default true with the built-in SQLite storage; ignored with a custom `storage`).
   */
  metadataThread?: boolean;
}

export class Accounts {
  readonly storage: AccountsStorage;
  readonly keys: CachedKeyStore;
  readonly limiter: KeyRateLimiter;
  readonly quota: QuotaTracker;
  readonly admission: KeyAdmission;
  readonly demo: DemoRateLimiter;
  readonly metadata: MetadataLog;
  readonly retention: RetentionJob;
  /** Where metadata rows go: the writer thread, or `storage` itself. */
  readonly metadataSink: MetadataSink;
  /** What API_KEYS seeding did, for a start-up log line (prefixes only). */
  seeded: Array<{ prefix: string; outcome: SeedOutcome }> = [];
  #sweepTimer: NodeJS.Timeout | undefined;

  /** GET /v1/usage: this month's count against the key's quota. */
  usageFor(record: KeyRecord): UsageReport {
    return this.quota.usageFor(record);
  }

  /** GET /v1/usage: the key's X-RateLimit-* headers as its next request would find them, uncounted. */
  limitHeadersFor(record: KeyRecord): HeaderList | null {
    const d = this.admission.peek(record);
    return d.limited ? limitHeaders(d) : null;
  }

  private constructor(options: AccountsOptions) {
    const clock = options.clock ?? systemClock;
    const onError = options.onError ?? ((error: unknown) => console.error('accounts:', error));
    const storage: AccountsStorage = options.storage ?? new SqliteStorage({ dataDir: options.dataDir });
    this.storage = storage;
    this.keys = new CachedKeyStore({ storage, clock, refreshIntervalMs: options.keyRefreshMs ?? 500, onError });
    // A storage that pushes key changes (PostgreSQL NOTIFY) reloads at once; the probe stays as a backstop.
    storage.watchKeys?.(() => { this.keys.refresh().catch(onError); });
    this.limiter = options.limiter ?? new RateLimiter({ clock });
    this.quota = new QuotaTracker({ storage, clock, flushIntervalMs: options.flushIntervalMs ?? 1_000, onError });
    this.admission = new KeyAdmission({ limiter: this.limiter, quota: this.quota });
    this.demo = options.demo ?? new DemoLimiter({ clock, limitPerHour: options.demoLimitPerHour ?? 10 });
    const threaded = options.storage === undefined && options.metadataThread !== false;
    this.metadataSink = threaded ? new ThreadedMetadataWriter({ dataDir: options.dataDir }) : storage;
    const sink = this.metadataSink;
    this.metadata = new MetadataLog({ storage: sink, clock, flushIntervalMs: options.flushIntervalMs ?? 1_000, onError });
    this.retention = new RetentionJob({ storage: sink, clock, onError });
  }

  /** Opens storage (migrating it), seeds API_KEYS, loads keys and this month's usage. */
  static async open(options: AccountsOptions): Promise<Accounts> {
    const accounts = new Accounts(options);
    accounts.seeded = await accounts.keys.seed(options.apiKeys ?? []);
    await accounts.quota.load();
    return accounts;
  }

  /** Starts the background timers (all unref'd). */
  start(): void {
    this.keys.start();
    this.quota.start();
    this.metadata.start();
    this.retention.start();
    if (this.#sweepTimer === undefined) {
      this.#sweepTimer = setInterval(() => { this.limiter.sweep(); this.demo.sweep(); }, 60_000);
      this.#sweepTimer.unref();
    }
  }

  /** Prometheus lines of the accounts layer (no labels). */
  metricLines(): string[] {
    const out: string[] = [];
    metricSample(out, 'jsonmend_key_store_miss_probes_total', 'counter', 'Storage probes run because a request named a key not in memory.', this.keys.missProbes);
    metricSample(out, 'jsonmend_key_store_negative_hits_total', 'counter', 'Unknown keys refused from the negative cache, without a probe.', this.keys.negativeHits);
    return out;
  }

  /** Writes everything buffered now. */
  async flush(): Promise<void> {
    await this.quota.flush();
    await this.metadata.flush();
    await this.keys.flushLastUsed();
  }

  /** Stops the timers, flushes, and closes storage (shutdown). */
  async close(): Promise<void> {
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.retention.close();
    try {
      await this.keys.close();
      await this.quota.close();
      await this.metadata.close();
    } finally {
      if (this.metadataSink !== this.storage) await this.metadataSink.close?.();
      await this.storage.close();
    }
  }
}

export { newKeyAdmissionDecision, type KeyAdmissionDecision } from './key-admission.js';
export { newDecision, type RateLimitDecision } from './rate-limiter.js';
export { repairCountsOf, ENDPOINTS, type MetadataEntry } from './metadata/metadata-log.js';
export { TIERS, type Tier } from '../config/tiers.js';
export type { KeyRecord, KeyStore } from './key-store.js';
export type { TierName } from '../config/tiers.js';
export type { UsageReport } from './quota.js';
export { systemClock, ManualClock, type Clock } from './clock.js';

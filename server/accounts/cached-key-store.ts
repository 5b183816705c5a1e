// The key store the request path authenticates with: an in-memory map from SHA-256 to record,
// refreshed from storage in the background. A probe of the keys_version counter every
// `refreshIntervalMs` (500 ms) notices keys revoked by the CLI in another process, so they are
// refused within a second; lookups of known keys never wait for storage. A key the map does not
// hold is asked about before it is refused (lookupMiss): one probe, shared by every miss waiting
// for it and spaced at least `missProbeGapMs` from the previous one, reloads the map if keys
// changed, so a key created a moment ago works on its first request while random keys cost the
// database at most one probe per gap. A miss that probe confirms is remembered (NegativeKeyCache)
// until the table next changes. Keys already seen skip the SHA-256 through a cache of known raw
// keys that is dropped with every reload.
import { timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { KnownKeyCache } from './known-key-cache.js';
import { NegativeKeyCache } from './negative-key-cache.js';
import type { SeedKey } from '../config/env-parsers.js';
import { MAX_KEY_LENGTH } from '../config/key-length.js';
import { displayPrefix, hashApiKey, keyDigest, newKeyId } from './api-key.js';
import type { Clock } from './clock.js';
import type { KeyRecord, KeyStore } from './key-store.js';
import type { AccountsStorage, LastUsed, SeedOutcome, StoredKey } from './storage/accounts-storage.js';

interface Entry {
  readonly record: KeyRecord;
  readonly hash: Buffer;
  lastUsedAt: number;
  dirty: boolean;
}

export interface CachedKeyStoreOptions {
  storage: AccountsStorage;
  clock: Clock;
  refreshIntervalMs?: number;
  /** Least time between two storage probes caused by unknown keys (default 25 ms). */
  missProbeGapMs?: number;
  /** Background failures (a locked or broken database); the cache keeps serving what it has. */
  onError?: (error: unknown) => void;
}

export class CachedKeyStore implements KeyStore {
  readonly refreshIntervalMs: number;
  readonly missProbeGapMs: number;
  readonly #storage: AccountsStorage;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  #byHash = new Map<string, Entry>();
  /** Raw key -> an entry of #byHash; cleared whenever #byHash is replaced. */
  readonly #known = new KnownKeyCache<Entry>();
  #version = -1;
  /** Refreshes started, and the latest one whose table is in place (see refresh). */
  #refreshes = 0;
  #applied = 0;
  #dirty: Entry[] = [];
  #busy = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #negative = new NegativeKeyCache();
  /** The probe that misses arriving now will wait for; null until one arrives. */
  #nextProbe: Promise<void> | null = null;
  #probing: Promise<unknown> = Promise.resolve();
  #lastProbeAt = -Infinity;
  /** Storage probes run for misses, and misses answered from the negative cache (metrics). */
  missProbes = 0;
  negativeHits = 0;

  constructor(options: CachedKeyStoreOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 500;
    this.missProbeGapMs = options.missProbeGapMs ?? 25;
    this.#onError = options.onError ?? (() => {});
  }

  get size(): number { return this.#byHash.size; }
  /** Raw keys remembered since the last reload (only ones that authenticated). */
  get knownKeys(): number { return this.#known.size; }

  lookup(key: string): KeyRecord | undefined {
    let entry = this.#known.get(key);
    if (entry === undefined) {
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) return undefined;
      const digest = keyDigest(key);
      entry = this.#byHash.get(digest.toString('hex'));
      // The map finds the candidate; the final comparison is constant-time on the full hash.
      if (entry === undefined || !timingSafeEqual(entry.hash, digest)) return undefined;
      this.#known.remember(key, entry);
    }
    entry.lastUsedAt = this.#clock.now();
    if (!entry.dirty) {
      entry.dirty = true;
      this.#dirty.push(entry);
    }
    return entry.record;
  }

  lookupMiss(key: string): Promise<KeyRecord | undefined> | undefined {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return undefined;
    const digest = hashApiKey(key);
    if (this.#negative.has(digest, this.#clock.now())) {
      this.negativeHits++;
      return undefined;
    }
    return this.#probe().then(() => {
      const found = this.lookup(key);
      if (found === undefined) this.#negative.remember(digest, this.#clock.now());
      return found;
    }, (error: unknown) => {
      // Storage unreachable: refuse this key now (it is not known), but remember nothing.
      this.#onError(error);
      return undefined;
    });
  }

  /**
   * A refresh that starts after the caller arrived: a key whose creation finished before the
   * request was sent is then in the table. Every miss until it starts shares it.
   */
  #probe(): Promise<void> {
    return (this.#nextProbe ??= this.#runProbe());
  }

  async #runProbe(): Promise<void> {
    await this.#probing;
    const wait = this.#lastProbeAt + this.missProbeGapMs - performance.now();
    if (wait > 0) await sleep(wait);
    this.#nextProbe = null; // misses from here on need a probe that starts after them
    this.#lastProbeAt = performance.now();
    this.missProbes++;
    const run = this.refresh();
    this.#probing = run.catch(() => undefined);
    await run;
  }

  /** Reloads the map if keys changed since the last load. Returns whether it reloaded. */
  async refresh(force = false): Promise<boolean> {
    const ticket = ++this.#refreshes;
    const version = await this.#storage.keysVersion();
    if (!force && version === this.#version) return false;
    const keys = await this.#storage.loadAllActiveKeys();
    // Two refreshes can overlap (the timer's and the console's after a revoke); one that started
    // earlier must not put back a table read before a later one, which may have dropped a key.
    if (ticket < this.#applied) return false;
    this.#applied = ticket;
    const next = new Map<string, Entry>();
    for (const k of keys) next.set(k.hash, toEntry(k));
    // Swapped whole, with the known-key cache in the same step: a lookup sees the old table or the
    // new one, never half, and never a cached entry of a table that is gone.
    this.#byHash = next;
    this.#known.clear();
    this.#negative.clear(); // a key refused before may exist now
    this.#version = version;
    return true;
  }

  /** Writes the last-used times gathered since the previous flush, in one batch. */
  async flushLastUsed(): Promise<void> {
    if (this.#dirty.length === 0) return;
    const entries = this.#dirty;
    this.#dirty = [];
    const batch: LastUsed[] = entries.map((e) => {
      e.dirty = false;
      return { keyId: e.record.id, at: e.lastUsedAt };
    });
    try {
      await this.#storage.touchLastUsed(batch);
    } catch (error) {
      for (const e of entries) {
        if (!e.dirty) { e.dirty = true; this.#dirty.push(e); }
      }
      throw error;
    }
  }

  /** API_KEYS seeding: insert-or-update by hash, then load. Revoked keys stay revoked. */
  async seed(seeds: readonly SeedKey[]): Promise<Array<{ prefix: string; outcome: SeedOutcome }>> {
    const outcomes: Array<{ prefix: string; outcome: SeedOutcome }> = [];
    for (const { key, tier } of seeds) {
      const prefix = displayPrefix(key);
      const outcome = await this.#storage.seedKey({
        id: newKeyId(), hash: hashApiKey(key), prefix, name: 'API_KEYS', tier, createdAt: this.#clock.now(),
      });
      outcomes.push({ prefix, outcome });
    }
    await this.refresh(true);
    return outcomes;
  }

  /** Starts the background refresh + last-used flush (an unref'd timer: it never keeps the process up). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.#tick(), this.refreshIntervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flushLastUsed();
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      await this.refresh();
      await this.flushLastUsed();
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#busy = false;
    }
  }
}

function toEntry(k: StoredKey): Entry {
  const record: KeyRecord = Object.freeze({ id: k.id, tier: k.tier, prefix: k.prefix, accountId: k.userId ?? k.id });
  return { record, hash: Buffer.from(k.hash, 'hex'), lastUsedAt: k.lastUsedAt ?? 0, dirty: false };
}

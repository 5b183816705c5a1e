// The key-store contract the server authenticates with, and the in-memory store seeded from
// API_KEYS (without the accounts layer). CachedKeyStore (cached-key-store.ts) is the persistent one.
import { timingSafeEqual } from 'node:crypto';
import { MAX_KEY_LENGTH } from '../config/key-length.js';
import { displayPrefix, keyDigest } from './api-key.js';
import type { KeyRecord } from '../http/authentication-hook.js';
import type { SeedKey } from '../config/env-parsers.js';
import { KnownKeyCache } from './known-key-cache.js';

// The caller a key stands for is the HTTP layer's vocabulary (its authentication hook).
export type { KeyRecord };

export interface KeyStore {
  /** Synchronous: a key the store holds in memory never waits for storage. */
  lookup(key: string): KeyRecord | undefined;
  /**
   * Asked after lookup() missed, before the key is refused: the backing store may hold a key
   * created a moment ago (by the CLI, another process). Undefined when the answer is known without
   * asking (a recent miss, a malformed key). Optional: a store that never changes has nothing to ask.
   */
  lookupMiss?(key: string): Promise<KeyRecord | undefined> | undefined;
}

interface StoredEntry { digest: Buffer; record: KeyRecord }

/** Keys live only as SHA-256 digests. The table never changes, so the known-key cache never goes stale. */
export class MemoryKeyStore implements KeyStore {
  readonly #byHash = new Map<string, StoredEntry>();
  readonly #known = new KnownKeyCache<KeyRecord>();

  constructor(seeds: readonly SeedKey[]) {
    for (const seed of seeds) {
      const digest = keyDigest(seed.key);
      const hex = digest.toString('hex');
      const id = `env_${hex.slice(0, 16)}`;
      const record: KeyRecord = Object.freeze({ id, tier: seed.tier, prefix: displayPrefix(seed.key), accountId: id });
      this.#byHash.set(hex, { digest, record });
    }
  }

  get size(): number {
    return this.#byHash.size;
  }

  lookup(key: string): KeyRecord | undefined {
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return undefined;
    const digest = keyDigest(key);
    // The map is indexed by digest, so its lookup time says nothing about the key's bytes; the
    // final comparison is constant-time anyway, so correctness never rests on that argument.
    const entry = this.#byHash.get(digest.toString('hex'));
    if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return undefined;
    this.#known.remember(key, entry.record);
    return entry.record;
  }
}

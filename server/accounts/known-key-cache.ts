// Raw API key -> the key store's entry, for keys already authenticated: a known key then costs one
// Map probe instead of a SHA-256 per request (about 1–2 µs, the largest part of authentication).
// Only successful lookups are remembered, so unknown keys cannot grow it; it is bounded anyway, and
// the owning store clears it whenever it swaps its key table, so a revoked or changed key is refused
// from the same reload as without the cache. A Map probe compares strings only on an equal string
// hash, so its timing tells a caller nothing it could use to guess a key.
export const KNOWN_KEYS_MAX = 10_000;

export class KnownKeyCache<Entry> {
  #byKey = new Map<string, Entry>();

  constructor(readonly max = KNOWN_KEYS_MAX) {}

  get size(): number {
    return this.#byKey.size;
  }

  get(key: string): Entry | undefined {
    return this.#byKey.get(key);
  }

  remember(key: string, entry: Entry): void {
    // More distinct raw keys than active keys means churn; start over rather than track recency.
    if (this.#byKey.size >= this.max) this.#byKey.clear();
    this.#byKey.set(key, entry);
  }

  clear(): void {
    this.#byKey.clear();
  }
}

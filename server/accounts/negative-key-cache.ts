// Keys the backing store was asked about and did not hold: a repeat of one (a client retrying a
// revoked or mistyped key) is refused from memory, without asking the store again. Bounded in
// size (past `max` entries it starts over, as KnownKeyCache does) and in time (an entry lasts
// `ttlMs`); the owning store clears it whenever its key table changes, so a key created later is
// never refused because of an earlier miss. Entries are SHA-256 digests, never raw keys.
export const NEGATIVE_KEYS_MAX = 10_000;
export const NEGATIVE_KEY_TTL_MS = 30_000;

export class NegativeKeyCache {
  readonly #until = new Map<string, number>();

  constructor(readonly max = NEGATIVE_KEYS_MAX, readonly ttlMs = NEGATIVE_KEY_TTL_MS) {}

  get size(): number {
    return this.#until.size;
  }

  has(digest: string, now: number): boolean {
    const until = this.#until.get(digest);
    if (until === undefined) return false;
    if (now < until) return true;
    this.#until.delete(digest);
    return false;
  }

  remember(digest: string, now: number): void {
    // Many distinct misses are random keys, which a cache cannot help with anyway (the store's
    // probe spacing bounds those); start over rather than track recency.
    if (this.#until.size >= this.max) this.#until.clear();
    this.#until.set(digest, now + this.ttlMs);
  }

  clear(): void {
    this.#until.clear();
  }
}

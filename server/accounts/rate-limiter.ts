// Per-key request-rate limiting with GCRA (the generic cell rate algorithm, a virtual-scheduling
// token bucket). Each key keeps one number, its "theoretical arrival time" (TAT): a limit of L per
// window W spaces requests T = W/L apart and tolerates a burst of L. A check is O(1) and, for a
// known key, allocates nothing; a limit change (a key falling back to the degraded rate) needs no
// state migration because TAT is a time, not a count. An entry whose TAT has passed carries no
// information (the bucket is full), so idle entries are dropped freely to keep the table bounded.
import type { Clock } from './clock.js';

export interface RateLimitDecision {
  allowed: boolean;
  /** X-RateLimit-Limit: requests per window. */
  limit: number;
  /** X-RateLimit-Remaining: requests that would be allowed right now, after this one. */
  remaining: number;
  /** X-RateLimit-Reset: epoch seconds when the full limit is available again. */
  resetSeconds: number;
  /** Seconds until a denied request may be retried (0 when allowed). */
  retryAfterSeconds: number;
}

export function newDecision(): RateLimitDecision {
  return { allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };
}

/** Fills `out` (its `limit` already set) as an admitted request. Times are epoch ms. */
export function admitted(out: RateLimitDecision, remaining: number, resetAt: number): RateLimitDecision {
  out.allowed = true;
  out.remaining = remaining;
  out.resetSeconds = Math.ceil(resetAt / 1000);
  out.retryAfterSeconds = 0;
  return out;
}

/** Fills `out` (its `limit` already set) as a refusal: a retry can succeed `waitMs` from now (at least 1 s). */
export function refused(out: RateLimitDecision, resetAt: number, waitMs: number): RateLimitDecision {
  out.allowed = false;
  out.remaining = 0;
  out.resetSeconds = Math.ceil(resetAt / 1000);
  out.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return out;
}

/**
 * What keyed admission needs of a limiter: this one, or the Redis-shared one (shared-rate-limiter.ts),
 * whose check() answers later (a promise of its own decision object) when it must ask Redis first.
 */
export interface KeyRateLimiter {
  check(id: string, limit: number, out?: RateLimitDecision): RateLimitDecision | Promise<RateLimitDecision>;
  peek(id: string, limit: number, out?: RateLimitDecision): RateLimitDecision;
  sweep(): number;
}

export interface RateLimiterOptions {
  clock: Clock;
  windowMs?: number;
  /** Table bound; past it idle entries are swept, then the oldest are dropped. */
  maxEntries?: number;
}

interface Slot { tat: number }

// Guards floor() against 59.99999 from non-integer emission intervals (e.g. 7 per minute).
const EPSILON = 1e-9;

/** A key's theoretical arrival time: its stored one, or now when its bucket is full (or it has none). */
function tatOf(slot: Slot | undefined, now: number): number {
  return slot !== undefined && slot.tat > now ? slot.tat : now;
}

export class RateLimiter implements KeyRateLimiter {
  readonly windowMs: number;
  readonly maxEntries: number;
  readonly #clock: Clock;
  readonly #slots = new Map<string, Slot>();

  constructor(options: RateLimiterOptions) {
    this.#clock = options.clock;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  get size(): number { return this.#slots.size; }

  /**
   * Counts one request for `id` against `limit` requests per window and fills `out`.
   * `limit` must be a positive finite number (unlimited callers are not checked at all).
   * A denied request does not consume capacity.
   */
  check(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision {
    const now = this.#clock.now();
    const interval = this.windowMs / limit;
    let slot = this.#slots.get(id);
    const tat = tatOf(slot, now);
    const nextTat = tat + interval;
    const allowAt = nextTat - this.windowMs;
    out.limit = limit;
    if (now < allowAt) return refused(out, tat, allowAt - now);
    if (slot === undefined) {
      if (this.#slots.size >= this.maxEntries) this.#makeRoom();
      slot = { tat: nextTat };
      this.#slots.set(id, slot);
    } else {
      slot.tat = nextTat;
    }
    return admitted(out, this.#remaining(now, nextTat, interval), nextTat);
  }

  /**
   * What a request for `id` would find right now, without counting one: `remaining` requests may
   * be made, the full limit is back at `resetSeconds` (GET /v1/usage reports it).
   */
  peek(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision {
    const now = this.#clock.now();
    const interval = this.windowMs / limit;
    const tat = tatOf(this.#slots.get(id), now);
    out.allowed = now >= tat + interval - this.windowMs; // as check() would decide
    out.limit = limit;
    out.remaining = this.#remaining(now, tat, interval);
    out.resetSeconds = Math.ceil(tat / 1000);
    // As check() would answer a refusal: when the next request could pass (at least 1 s).
    out.retryAfterSeconds = out.allowed ? 0 : Math.max(1, Math.ceil((tat + interval - this.windowMs - now) / 1000));
    return out;
  }

  /** Requests the bucket holds at `now` when the next one's theoretical arrival time is `tat`. */
  #remaining(now: number, tat: number, interval: number): number {
    return Math.max(0, Math.floor((now + this.windowMs - tat) / interval + EPSILON));
  }

  /** Drops entries whose bucket has refilled. Returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let dropped = 0;
    for (const [id, slot] of this.#slots) {
      if (slot.tat <= now) {
        this.#slots.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  #makeRoom(): void {
    this.sweep();
    if (this.#slots.size < this.maxEntries) return;
    // Still full of active keys: drop the tenth whose buckets are closest to full (they carry the
    // least state), so this O(n log n) pass runs at most once per maxEntries/10 new keys.
    const tats = Float64Array.from(this.#slots.values(), (s) => s.tat).sort();
    const threshold = tats[Math.floor(tats.length / 10)]!;
    for (const [id, slot] of this.#slots) if (slot.tat <= threshold) this.#slots.delete(id);
  }
}

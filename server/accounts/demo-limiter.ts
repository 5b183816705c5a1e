// The demo's per-IP limit (spec "Limits": 10 requests per hour per IP, reset one hour after the
// first request). A fixed window per address that opens at its first request. The table is kept in
// window-start order (a new window re-inserts its entry), so expired entries sit at the front and
// sweeping stops at the first live one; past `maxEntries` the oldest windows are dropped.
import type { Clock } from './clock.js';
import { admitted, newDecision, refused, type RateLimitDecision } from './rate-limiter.js';

/**
 * What the demo's admission needs: this limiter, or the Redis-shared one (shared-demo-limiter.ts),
 * whose check() answers later (a promise of its own decision object) when it asks Redis.
 */
export interface DemoRateLimiter {
  readonly limit: number;
  check(ipKey: string, out?: RateLimitDecision): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Gives back one request `check` counted in the address's current window (one the server did not
   * serve: a malformed or oversized body, a full server) and fills `out` as it now stands.
   */
  refund(ipKey: string, out?: RateLimitDecision): RateLimitDecision;
  sweep(): number;
}

export interface DemoLimiterOptions {
  clock: Clock;
  /** DEMO_LIMIT_PER_HOUR. */
  limitPerHour?: number;
  windowMs?: number;
  maxEntries?: number;
}

interface Window { start: number; count: number }

export class DemoLimiter implements DemoRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxEntries: number;
  readonly #clock: Clock;
  readonly #windows = new Map<string, Window>();

  constructor(options: DemoLimiterOptions) {
    this.#clock = options.clock;
    this.limit = options.limitPerHour ?? 10;
    this.windowMs = options.windowMs ?? 3_600_000;
    this.maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(this.limit) || this.limit < 0) throw new Error('DEMO_LIMIT_PER_HOUR must be a whole number >= 0');
  }

  get size(): number { return this.#windows.size; }

  /**
   * Counts one demo request from `ipKey` (see limitKeyForIp) and fills `out` with the header values;
   * `limit` below DEMO_LIMIT_PER_HOUR is a node's share while the shared count is out of reach.
   */
  check(ipKey: string, out: RateLimitDecision = newDecision(), limit: number = this.limit): RateLimitDecision {
    const now = this.#clock.now();
    let w = this.#windows.get(ipKey);
    if (w === undefined || now >= w.start + this.windowMs) {
      if (w !== undefined) this.#windows.delete(ipKey); // re-insert at the end: keeps start order
      else if (this.#windows.size >= this.maxEntries) this.#makeRoom(now);
      w = { start: now, count: 0 };
      this.#windows.set(ipKey, w);
    }
    const resetAt = w.start + this.windowMs;
    out.limit = limit;
    if (w.count >= limit) return refused(out, resetAt, resetAt - now);
    w.count++;
    return admitted(out, limit - w.count, resetAt);
  }

  refund(ipKey: string, out: RateLimitDecision = newDecision()): RateLimitDecision {
    const now = this.#clock.now();
    const w = this.#windows.get(ipKey);
    out.limit = this.limit;
    if (w === undefined || now >= w.start + this.windowMs) return admitted(out, this.limit, now + this.windowMs);
    if (w.count > 0) w.count--;
    return admitted(out, this.limit - w.count, w.start + this.windowMs);
  }

  /** Drops windows that have ended. Returns how many. */
  sweep(now: number = this.#clock.now()): number {
    let dropped = 0;
    for (const [key, w] of this.#windows) {
      if (now < w.start + this.windowMs) break;
      this.#windows.delete(key);
      dropped++;
    }
    return dropped;
  }

  #makeRoom(now: number): void {
    this.sweep(now);
    let excess = this.#windows.size - Math.floor(this.maxEntries * 0.9);
    if (this.#windows.size < this.maxEntries) return;
    for (const key of this.#windows.keys()) {
      if (excess-- <= 0) break;
      this.#windows.delete(key);
    }
  }
}

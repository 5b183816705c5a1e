// The demo's per-IP hourly limit shared by every node through Redis (REDIS_URL). A demo request is
// decided at once from what this node knows of the address's shared window (its last reply from
// Redis plus its own requests since), and counted in Redis in the background (INCR; the window's
// expiry is set by the request that opens it). Every node therefore refuses once the shared count
// reaches the limit, allowing past it only requests that arrive on a node before that node has heard
// the count: normally at most one per node. While Redis is down the local window (demo-limiter.ts)
// decides alone.
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { DemoLimiter, type DemoRateLimiter } from './demo-limiter.js';
import { admitted, newDecision, refused, type RateLimitDecision } from './rate-limiter.js';
import type { StoreHealth } from '../stores/store-health.js';

// KEYS[1]: the address's window. ARGV[1]: window ms. Returns { count, ms until the window ends }.
const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { n, ttl }
`;

// KEYS[1]: the address's window. Takes one back from a live window; returns the count left.
const REFUND_LUA = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then n = redis.call('DECR', KEYS[1]) end
return n
`;

/** Addresses remembered at most (the oldest goes first); Redis still holds their counts. */
const MAX_ENTRIES = 100_000;

/** `refunding`: refunds sent to Redis and not yet answered (their DECR runs after any INCR answered before). */
interface Known { count: number; resetAt: number; refunding: number }
interface CountCommand {
  jmDemoCount(key: string, windowMs: number): Promise<[number, number]>;
  jmDemoRefund(key: string): Promise<number>;
}

export interface SharedDemoLimiterOptions {
  redis: Redis;
  health: StoreHealth;
  clock: Clock;
  limitPerHour: number;
  windowMs?: number;
  keyPrefix?: string;
}

export class SharedDemoLimiter implements DemoRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly local: DemoLimiter;
  readonly #redis: Redis & CountCommand;
  readonly #health: StoreHealth;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #known = new Map<string, Known>();

  constructor(options: SharedDemoLimiterOptions) {
    this.limit = options.limitPerHour;
    this.windowMs = options.windowMs ?? 3_600_000;
    this.#clock = options.clock;
    this.local = new DemoLimiter({ clock: options.clock, limitPerHour: options.limitPerHour, windowMs: this.windowMs });
    this.#health = options.health;
    this.#prefix = options.keyPrefix ?? 'jm:demo:';
    options.redis.defineCommand('jmDemoCount', { numberOfKeys: 1, lua: COUNT_LUA });
    options.redis.defineCommand('jmDemoRefund', { numberOfKeys: 1, lua: REFUND_LUA });
    this.#redis = options.redis as Redis & CountCommand;
  }

  check(ipKey: string, out: RateLimitDecision = newDecision()): RateLimitDecision {
    if (!this.#health.up || this.limit === 0) return this.local.check(ipKey, out);
    const now = this.#clock.now();
    let known = this.#known.get(ipKey);
    if (known === undefined || now >= known.resetAt) {
      if (known === undefined && this.#known.size >= MAX_ENTRIES) this.#known.delete(this.#known.keys().next().value!);
      known = { count: 0, resetAt: now + this.windowMs, refunding: 0 };
      this.#known.set(ipKey, known);
    }
    out.limit = this.limit;
    if (known.count >= this.limit) return refused(out, known.resetAt, known.resetAt - now);
    known.count++;
    admitted(out, this.limit - known.count, known.resetAt);
    const entry = known;
    this.#health.track(this.#redis.jmDemoCount(this.#prefix + ipKey, this.windowMs)).then(([count, ttl]) => {
      // Another node's requests show up here; this node's own in-flight ones are already counted.
      entry.count = Math.max(entry.count, Number(count) - entry.refunding);
      entry.resetAt = this.#clock.now() + Number(ttl);
    }, () => {});
    return out;
  }

  refund(ipKey: string, out: RateLimitDecision = newDecision()): RateLimitDecision {
    if (!this.#health.up || this.limit === 0) return this.local.refund(ipKey, out);
    const now = this.#clock.now();
    const known = this.#known.get(ipKey);
    out.limit = this.limit;
    if (known === undefined || now >= known.resetAt) return admitted(out, this.limit, now + this.windowMs);
    if (known.count > 0) known.count--;
    known.refunding++;
    const entry = known;
    this.#health.track(this.#redis.jmDemoRefund(this.#prefix + ipKey)).finally(() => entry.refunding--).catch(() => {});
    return admitted(out, this.limit - known.count, known.resetAt);
  }

  sweep(): number {
    const now = this.#clock.now();
    let dropped = this.local.sweep(now);
    for (const [ip, k] of this.#known) {
      if (now < k.resetAt) continue;
      this.#known.delete(ip);
      dropped++;
    }
    return dropped;
  }
}

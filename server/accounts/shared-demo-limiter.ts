// The demo's per-IP hourly limit shared by every node through Redis (REDIS_URL). A demo request
// whose address this node does not yet know to be used up is counted in Redis first (INCR; the
// window's expiry is set by the request that opens it) and admitted only if that count is within
// the limit, so across any number of nodes and any concurrency an address gets exactly the limit.
// Demo requests are few (DEMO_LIMIT_PER_HOUR per address), so the round trip (bounded by the Redis
// command timeout) is paid only by them; once an address is known to be used up, this node refuses
// it without asking. While Redis is down each node enforces its share of the limit (the limit
// divided by the live nodes Redis last reported) on its own window (demo-limiter.ts).
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { DemoLimiter, type DemoRateLimiter } from './demo-limiter.js';
import { admitted, newDecision, refused, type RateLimitDecision } from './rate-limiter.js';
import { shareOf, type LiveNodes } from './shared-rate-limiter.js';
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

/** Addresses remembered as used up at most (the oldest goes first); Redis still holds their counts. */
const MAX_ENTRIES = 100_000;

/** Sets `key` in a map bounded to MAX_ENTRIES: a new key past the bound drops the oldest entry. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** What this node last heard from Redis of an address's window: what a refund's headers report. */
interface Seen { count: number; resetAt: number }
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
  /** Sizes the share a node keeps while Redis is down; default: this node alone. */
  nodes?: LiveNodes;
}

export class SharedDemoLimiter implements DemoRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly local: DemoLimiter;
  readonly #redis: Redis & CountCommand;
  readonly #health: StoreHealth;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #nodes: LiveNodes;
  /** Addresses Redis said are used up, with the end of their window (local clock). */
  readonly #usedUp = new Map<string, number>();
  /** The count Redis last gave for an address (bounded like #usedUp): what a refund reports as left. */
  readonly #seen = new Map<string, Seen>();

  constructor(options: SharedDemoLimiterOptions) {
    this.limit = options.limitPerHour;
    this.windowMs = options.windowMs ?? 3_600_000;
    this.#clock = options.clock;
    this.local = new DemoLimiter({ clock: options.clock, limitPerHour: options.limitPerHour, windowMs: this.windowMs });
    this.#health = options.health;
    this.#prefix = options.keyPrefix ?? 'jm:demo:';
    this.#nodes = options.nodes ?? { count: 1 };
    options.redis.defineCommand('jmDemoCount', { numberOfKeys: 1, lua: COUNT_LUA });
    options.redis.defineCommand('jmDemoRefund', { numberOfKeys: 1, lua: REFUND_LUA });
    this.#redis = options.redis as Redis & CountCommand;
  }

  check(ipKey: string, out: RateLimitDecision = newDecision()): RateLimitDecision | Promise<RateLimitDecision> {
    if (!this.#health.up || this.limit === 0) return this.#onShare(ipKey, out);
    const now = this.#clock.now();
    const until = this.#usedUp.get(ipKey);
    if (until !== undefined) {
      out.limit = this.limit;
      if (now < until) return refused(out, until, until - now);
      this.#usedUp.delete(ipKey);
    }
    return this.#health.track(this.#redis.jmDemoCount(this.#prefix + ipKey, this.windowMs)).then(([count, ttl]) => {
      const resetAt = this.#clock.now() + Number(ttl);
      remember(this.#seen, ipKey, { count: Number(count), resetAt });
      const decision = newDecision();
      decision.limit = this.limit;
      if (count < this.limit) return admitted(decision, this.limit - count, resetAt);
      remember(this.#usedUp, ipKey, resetAt);
      return count === this.limit ? admitted(decision, 0, resetAt) : refused(decision, resetAt, Number(ttl));
    }, () => this.#onShare(ipKey, newDecision()));
  }

  /** Redis is down (or the demo is off): this node's own window, at its share of the limit. */
  #onShare(ipKey: string, out: RateLimitDecision): RateLimitDecision {
    return this.local.check(ipKey, out, this.limit === 0 ? 0 : shareOf(this.limit, this.#nodes.count));
  }

  /** A served-nothing request gives its count back in Redis (its INCR was answered before it was admitted). */
  refund(ipKey: string, out: RateLimitDecision = newDecision()): RateLimitDecision {
    if (!this.#health.up || this.limit === 0) return this.local.refund(ipKey, out);
    const now = this.#clock.now();
    this.#usedUp.delete(ipKey);
    this.#health.track(this.#redis.jmDemoRefund(this.#prefix + ipKey)).catch(() => {});
    out.limit = this.limit;
    const seen = this.#seen.get(ipKey);
    if (seen === undefined || now >= seen.resetAt) return admitted(out, this.limit, now + this.windowMs);
    seen.count = Math.max(0, seen.count - 1);
    return admitted(out, this.limit - seen.count, seen.resetAt);
  }

  sweep(): number {
    const now = this.#clock.now();
    let dropped = this.local.sweep(now);
    for (const [ip, until] of this.#usedUp) {
      if (now < until) continue;
      this.#usedUp.delete(ip);
      dropped++;
    }
    for (const [ip, seen] of this.#seen) if (now >= seen.resetAt) this.#seen.delete(ip);
    return dropped;
  }
}

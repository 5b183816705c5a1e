// Per-key rate limits shared by every node through Redis (REDIS_URL), without a Redis round trip
// on the request path. Each key's GCRA bucket (rate-limiter.ts) lives in Redis as one number, its
// theoretical arrival time; a node takes a LEASE of a few requests at a time from it with one Lua
// script (atomic: nodes never take the same request twice) and spends them locally. When its lease
// runs low it asks for more in the background; when Redis says the bucket is empty the node refuses
// until Redis says a request is free again.
//
// A request that finds no lease (a key's first request on this node, or one arriving while the
// refill is in flight) is decided by the local limiter and charged to the shared bucket with the
// next refill, even past empty. So across N nodes a key gets its limit plus at most the requests
// each node admits during one refill round trip after the bucket emptied (normally one per node),
// and gives up at most the unspent lease each other node holds (lease size: limit/20, 1..50).
// While Redis is down (StoreHealth) every node falls back to enforcing the full limit on its own.
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { admitted, newDecision, RateLimiter, refused, type KeyRateLimiter, type RateLimitDecision } from './rate-limiter.js';
import type { StoreHealth } from '../stores/store-health.js';

// KEYS[1]: the bucket. ARGV: interval ms, window ms, requests wanted, requests already admitted (debt).
// Returns { granted, ms from Redis's now to the bucket's new theoretical arrival time }. Times come
// from Redis's clock, so nodes with skewed clocks still share one bucket.
const LEASE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local debt = tonumber(ARGV[4])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
tat = math.min(tat + debt * interval, now + window)
local available = math.floor((now + window - tat) / interval + 1e-9)
local granted = math.min(want, math.max(0, available))
tat = tat + granted * interval
if tat > now then redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now)) end
return { granted, tostring(tat - now) }
`;

interface Lease {
  limit: number;
  /** Requests granted by Redis and not spent yet. */
  tokens: number;
  /** Requests admitted locally, to charge with the next refill. */
  debt: number;
  grantedAt: number;
  /** The bucket's theoretical arrival time as of the last grant (local clock). */
  tat: number;
  /** Refuse until then: Redis had nothing left. */
  deniedUntil: number;
  refilling: boolean;
}

type LeaseReply = [number, string];
interface LeaseCommand { jmLease(key: string, interval: number, window: number, want: number, debt: number): Promise<LeaseReply> }

export interface SharedRateLimiterOptions {
  redis: Redis;
  health: StoreHealth;
  clock: Clock;
  windowMs?: number;
  keyPrefix?: string;
}

export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(50, Math.floor(limit / 20)));
}

export class SharedRateLimiter implements KeyRateLimiter {
  readonly windowMs: number;
  /** The fallback while Redis is down, and the judge of requests that find no lease. */
  readonly local: RateLimiter;
  readonly #redis: Redis & LeaseCommand;
  readonly #health: StoreHealth;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #leases = new Map<string, Lease>();

  constructor(options: SharedRateLimiterOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.#clock = options.clock;
    this.local = new RateLimiter({ clock: options.clock, windowMs: this.windowMs });
    this.#health = options.health;
    this.#prefix = options.keyPrefix ?? 'jm:rl:';
    options.redis.defineCommand('jmLease', { numberOfKeys: 1, lua: LEASE_LUA });
    this.#redis = options.redis as Redis & LeaseCommand;
  }

  get size(): number { return this.#leases.size + this.local.size; }

  check(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision {
    if (!this.#health.up) return this.local.check(id, limit, out);
    const now = this.#clock.now();
    const lease = this.#leaseFor(id, limit, now);
    out.limit = limit;
    if (lease.tokens > 0) {
      lease.tokens--;
      admitted(out, this.#remaining(lease, now), lease.tat);
      if (lease.tokens * 3 < leaseSize(limit)) this.#refill(id, lease);
      return out;
    }
    if (now < lease.deniedUntil) return refused(out, lease.tat, lease.deniedUntil - now);
    // No lease in hand: decide locally, charge it to the shared bucket with the refill.
    this.local.check(id, limit, out);
    if (out.allowed) lease.debt++;
    this.#refill(id, lease);
    return out;
  }

  peek(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision {
    const lease = this.#leases.get(id);
    if (!this.#health.up || lease === undefined || lease.limit !== limit) return this.local.peek(id, limit, out);
    const now = this.#clock.now();
    out.limit = limit;
    out.allowed = lease.tokens > 0 || now >= lease.deniedUntil;
    out.remaining = this.#remaining(lease, now);
    out.resetSeconds = Math.ceil(Math.max(now, lease.tat) / 1000);
    out.retryAfterSeconds = 0;
    return out;
  }

  /** Drops leases with nothing in hand, nothing owed and nothing refused; returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let dropped = this.local.sweep();
    for (const [id, l] of this.#leases) {
      if (l.refilling || l.debt > 0 || now < l.deniedUntil) continue;
      if (l.tokens > 0 && now - l.grantedAt < this.windowMs) continue;
      this.#leases.delete(id);
      dropped++;
    }
    return dropped;
  }

  #leaseFor(id: string, limit: number, now: number): Lease {
    let lease = this.#leases.get(id);
    if (lease === undefined) {
      lease = { limit, tokens: 0, debt: 0, grantedAt: 0, tat: now, deniedUntil: 0, refilling: false };
      this.#leases.set(id, lease);
    } else if (lease.limit !== limit || now - lease.grantedAt > this.windowMs) {
      // A new limit (the key fell to the degraded rate) or a stale lease: its requests were already
      // charged; dropping them only under-uses the bucket.
      lease.limit = limit;
      lease.tokens = 0;
      lease.deniedUntil = 0;
    }
    return lease;
  }

  /** Requests left as this node knows it: its own lease plus what Redis had at the last grant. */
  #remaining(lease: Lease, now: number): number {
    const interval = this.windowMs / lease.limit;
    const shared = Math.floor((now + this.windowMs - Math.max(now, lease.tat)) / interval + 1e-9);
    return Math.max(0, shared + lease.tokens);
  }

  #refill(id: string, lease: Lease): void {
    if (lease.refilling) return;
    lease.refilling = true;
    const debt = lease.debt;
    lease.debt = 0;
    const limit = lease.limit;
    const interval = this.windowMs / limit;
    const want = Math.max(1, leaseSize(limit) - lease.tokens);
    this.#health.track(this.#redis.jmLease(this.#prefix + id, interval, this.windowMs, want, debt)).then(([granted, ahead]) => {
      lease.refilling = false;
      if (lease.limit !== limit) return;
      const now = this.#clock.now();
      lease.tat = now + Number(ahead);
      lease.grantedAt = now;
      lease.tokens += Number(granted);
      lease.deniedUntil = lease.tokens > 0 ? 0 : lease.tat + interval - this.windowMs;
    }, () => {
      // Redis is marked down (StoreHealth): the local limiter decides until it is back.
      lease.refilling = false;
      lease.debt += debt;
    });
  }
}

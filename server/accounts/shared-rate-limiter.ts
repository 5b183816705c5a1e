// Per-key rate limits shared by every node through Redis (REDIS_URL), mostly without a Redis round
// trip on the request path. Each key's GCRA bucket (rate-limiter.ts) lives in Redis as one number,
// its theoretical arrival time; a node takes a LEASE of a few requests at a time from it with one
// Lua script (atomic: nodes never take the same request twice) and spends them locally. When its
// lease runs low it asks for more in the background; when Redis says the bucket is empty the node
// refuses until Redis says a request is free again.
//
// A request that finds no lease in hand (a key's first request on this node, or a burst that spent
// it) waits for Redis's grant rather than guess: every request admitted while Redis answers holds a
// request Redis granted, so across any number of nodes and any concurrency a key gets at most its
// limit (docs/scaling.md "Limits across nodes"). The wait is one round trip, bounded by the Redis
// command timeout. The cost is the other way: a lease another node holds and does not spend (at
// most leaseSize per node) is not available here until that node's lease goes stale.
// While Redis is down (StoreHealth) each node enforces its share of the limit on its own (the limit
// divided by the live nodes Redis last reported), and charges what it admitted to the shared bucket
// once Redis is back.
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { admitted, newDecision, RateLimiter, refused, type KeyRateLimiter, type RateLimitDecision } from './rate-limiter.js';
import type { StoreHealth } from '../stores/store-health.js';

// KEYS[1]: the bucket. ARGV: interval ms, window ms, requests wanted, requests already admitted
// (debt). Returns { granted, ms from Redis's now to the bucket's new theoretical arrival time }.
// Times come from Redis's clock, so nodes with skewed clocks still share one bucket.
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

/** A request waiting for its key's lease; `out` is its own (the caller's may be reused meanwhile). */
interface Waiter {
  out: RateLimitDecision;
  resolve: (decision: RateLimitDecision) => void;
}

interface Lease {
  limit: number;
  /** Requests granted by Redis and not spent yet. */
  tokens: number;
  /** Requests admitted on the local share while Redis was down, to charge with the next refill. */
  debt: number;
  grantedAt: number;
  /** The bucket's theoretical arrival time as of the last grant (local clock). */
  tat: number;
  /** Refuse until then: Redis had nothing left. */
  deniedUntil: number;
  refilling: boolean;
  /** Requests that found no token, in arrival order, until the refill in flight answers. */
  waiters: Waiter[] | null;
}

type LeaseReply = [number, string];
interface LeaseCommand { jmLease(key: string, interval: number, window: number, want: number, debt: number): Promise<LeaseReply> }

/** The live nodes of the deployment as last heard from Redis (shared-stores.ts keeps it current). */
export interface LiveNodes { readonly count: number }

export interface SharedRateLimiterOptions {
  redis: Redis;
  health: StoreHealth;
  clock: Clock;
  windowMs?: number;
  keyPrefix?: string;
  /** Sizes the share a node keeps while Redis is down; default: this node alone. */
  nodes?: LiveNodes;
}

export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(50, Math.floor(limit / 20)));
}

/** What one of `nodes` nodes may admit on its own while Redis is down: its share of `limit`, at least 1. */
export function shareOf(limit: number, nodes: number): number {
  return Math.max(1, Math.floor(limit / Math.max(1, nodes)));
}

export class SharedRateLimiter implements KeyRateLimiter {
  readonly windowMs: number;
  /** The fallback while Redis is down, at this node's share of each limit. */
  readonly local: RateLimiter;
  readonly #redis: Redis & LeaseCommand;
  readonly #health: StoreHealth;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #nodes: LiveNodes;
  readonly #leases = new Map<string, Lease>();

  constructor(options: SharedRateLimiterOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.#clock = options.clock;
    this.local = new RateLimiter({ clock: options.clock, windowMs: this.windowMs });
    this.#health = options.health;
    this.#prefix = options.keyPrefix ?? 'jm:rl:';
    this.#nodes = options.nodes ?? { count: 1 };
    options.redis.defineCommand('jmLease', { numberOfKeys: 1, lua: LEASE_LUA });
    this.#redis = options.redis as Redis & LeaseCommand;
  }

  get size(): number { return this.#leases.size + this.local.size; }

  /** Synchronous while a lease is in hand (or Redis said no); otherwise the promise of Redis's grant. */
  check(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision | Promise<RateLimitDecision> {
    if (!this.#health.up) return this.#onShare(id, limit, out);
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
    // No lease in hand: wait for Redis's grant rather than decide from a local bucket.
    const promise = new Promise<RateLimitDecision>((resolve) => (lease.waiters ??= []).push({ out: newDecision(), resolve }));
    this.#refill(id, lease);
    return promise;
  }

  peek(id: string, limit: number, out: RateLimitDecision = newDecision()): RateLimitDecision {
    if (!this.#health.up) return this.local.peek(id, shareOf(limit, this.#nodes.count), out);
    const lease = this.#leases.get(id);
    if (lease === undefined || lease.limit !== limit) return this.local.peek(id, limit, out);
    const now = this.#clock.now();
    out.limit = limit;
    out.allowed = lease.tokens > 0 || now >= lease.deniedUntil;
    out.remaining = this.#remaining(lease, now);
    out.resetSeconds = Math.ceil(Math.max(now, lease.tat) / 1000);
    out.retryAfterSeconds = 0;
    return out;
  }

  /** Drops leases with nothing in hand, nothing owed, nothing refused and nobody waiting; returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let dropped = this.local.sweep();
    for (const [id, l] of this.#leases) {
      if (l.refilling || l.waiters !== null || l.debt > 0 || now < l.deniedUntil) continue;
      if (l.tokens > 0 && now - l.grantedAt < this.windowMs) continue;
      this.#leases.delete(id);
      dropped++;
    }
    return dropped;
  }

  /** Redis is down: this node's share of the limit, charged to the shared bucket once Redis is back. */
  #onShare(id: string, limit: number, out: RateLimitDecision): RateLimitDecision {
    this.local.check(id, shareOf(limit, this.#nodes.count), out);
    if (out.allowed) this.#leaseFor(id, limit, this.#clock.now()).debt++;
    return out;
  }

  #leaseFor(id: string, limit: number, now: number): Lease {
    let lease = this.#leases.get(id);
    if (lease === undefined) {
      lease = { limit, tokens: 0, debt: 0, grantedAt: 0, tat: now, deniedUntil: 0, refilling: false, waiters: null };
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
    // Enough for everyone waiting and a lease for those to come; Redis grants what the bucket holds.
    const want = Math.max(1, leaseSize(limit) - lease.tokens) + (lease.waiters?.length ?? 0);
    this.#health.track(this.#redis.jmLease(this.#prefix + id, interval, this.windowMs, want, debt)).then(([granted, ahead]) => {
      lease.refilling = false;
      const now = this.#clock.now();
      if (lease.limit === limit) {
        lease.tat = now + Number(ahead);
        lease.grantedAt = now;
        lease.tokens += Number(granted);
        lease.deniedUntil = lease.tokens > 0 ? 0 : lease.tat + interval - this.windowMs;
      }
      this.#serveWaiters(id, lease, now);
    }, () => {
      // Redis is marked down (StoreHealth): whoever waits takes this node's share.
      lease.refilling = false;
      lease.debt += debt;
      const waiters = lease.waiters;
      lease.waiters = null;
      if (waiters !== null) for (const w of waiters) w.resolve(this.#onShare(id, lease.limit, w.out));
    });
  }

  /** Hands the lease to the waiting requests in order; the rest are refused, or wait for one more refill. */
  #serveWaiters(id: string, lease: Lease, now: number): void {
    const waiters = lease.waiters;
    if (waiters === null) return;
    let served = 0;
    for (; served < waiters.length && lease.tokens > 0; served++) {
      lease.tokens--;
      const w = waiters[served]!;
      w.out.limit = lease.limit;
      w.resolve(admitted(w.out, this.#remaining(lease, now), lease.tat));
    }
    if (served === waiters.length) {
      lease.waiters = null;
      if (lease.tokens * 3 < leaseSize(lease.limit)) this.#refill(id, lease);
      return;
    }
    const rest = waiters.slice(served);
    if (now < lease.deniedUntil) {
      lease.waiters = null;
      for (const w of rest) {
        w.out.limit = lease.limit;
        w.resolve(refused(w.out, lease.tat, lease.deniedUntil - now));
      }
      return;
    }
    // Redis granted fewer than were waiting (or the limit changed): ask again for the rest.
    lease.waiters = rest;
    this.#refill(id, lease);
  }
}

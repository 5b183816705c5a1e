// Console sessions in Redis (REDIS_URL), so a browser signed in through one node is signed in on
// every node. Same rules as the in-memory store (sessions.ts): the cookie's 256-bit id is never
// stored, only its SHA-256; a session ends after `idleMs` without use or `lifetimeMs` after sign-in,
// which Redis enforces as the key's expiry (renewed on each use, never past the lifetime). With Redis
// unreachable the console answers BUSY (503): there is no local copy to fall back on.
import type { Redis } from 'ioredis';
import { systemClock, type Clock } from '../../accounts/clock.js';
import { StoreUnavailable, type StoreHealth } from '../../stores/store-health.js';
import { digestOf, newSessionId, SESSION_DEFAULTS, type ConsoleSessions, type Session } from './sessions.js';

export interface SharedSessionsOptions {
  redis: Redis;
  health: StoreHealth;
  clock?: Clock;
  idleMs?: number;
  lifetimeMs?: number;
  keyPrefix?: string;
}

interface Stored { u: string; e: string; c: number }

export class SharedSessions implements ConsoleSessions {
  readonly idleMs: number;
  readonly lifetimeMs: number;
  readonly #redis: Redis;
  readonly #health: StoreHealth;
  readonly #clock: Clock;
  readonly #prefix: string;

  constructor(options: SharedSessionsOptions) {
    this.#redis = options.redis;
    this.#health = options.health;
    this.#clock = options.clock ?? systemClock;
    this.idleMs = options.idleMs ?? SESSION_DEFAULTS.idleMs;
    this.lifetimeMs = options.lifetimeMs ?? SESSION_DEFAULTS.lifetimeMs;
    this.#prefix = options.keyPrefix ?? 'jm:sess:';
  }

  async create(userId: string, email: string): Promise<string> {
    const now = this.#clock.now();
    const id = newSessionId();
    const value: Stored = { u: userId, e: email, c: now };
    await this.#call(this.#redis.set(this.#key(id), JSON.stringify(value), 'PX', Math.min(this.idleMs, this.lifetimeMs)));
    return id;
  }

  async get(id: string): Promise<Session | undefined> {
    if (id === '' || id.length > 64) return undefined;
    const key = this.#key(id);
    const raw = await this.#call(this.#redis.get(key));
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as Stored;
    const now = this.#clock.now();
    const left = stored.c + this.lifetimeMs - now;
    if (left <= 0) return undefined;
    // Each use postpones the idle end, never past the lifetime.
    this.#call(this.#redis.pexpire(key, Math.min(this.idleMs, left))).catch(() => {});
    return { userId: stored.u, email: stored.e, createdAt: stored.c, lastSeenAt: now };
  }

  maxAgeSeconds(session: Session): number {
    return Math.max(0, Math.ceil((session.createdAt + this.lifetimeMs - this.#clock.now()) / 1000));
  }

  async destroy(id: string): Promise<void> {
    if (id === '' || id.length > 64) return;
    await this.#call(this.#redis.del(this.#key(id)));
  }

  #key(id: string): string {
    return this.#prefix + digestOf(id);
  }

  async #call<T>(op: Promise<T>): Promise<T> {
    try {
      return await this.#health.track(op);
    } catch (error) {
      throw new StoreUnavailable('redis', error);
    }
  }
}

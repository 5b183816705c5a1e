// Console sessions, server-side and in memory. The cookie carries a 256-bit random id; the store is
// keyed by the id's SHA-256, so a lookup's timing depends on the digest, never on the secret itself.
// Sessions end after `idleMs` without use or `lifetimeMs` after sign-in, whichever comes first. The
// store is bounded: when full, ended sessions are swept, then the oldest sign-ins are dropped.
import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../../accounts/clock.js';

export interface Session {
  readonly userId: string;
  readonly email: string;
  readonly createdAt: number;
  lastSeenAt: number;
}

/**
 * What the console needs of a session store: this in-memory one, or the Redis one that every node
 * shares (shared-sessions.ts). Results may be promises; callers await them.
 */
export interface ConsoleSessions {
  create(userId: string, email: string): string | Promise<string>;
  get(id: string): Session | undefined | Promise<Session | undefined>;
  maxAgeSeconds(session: Session): number;
  destroy(id: string): void | Promise<void>;
}

export interface SessionStoreOptions {
  clock?: Clock;
  idleMs?: number;
  lifetimeMs?: number;
  maxSessions?: number;
}

export const SESSION_DEFAULTS = Object.freeze({
  idleMs: 12 * 3_600_000,
  lifetimeMs: 7 * 86_400_000,
  maxSessions: 10_000,
});

/** A fresh unguessable cookie value (256 bits, base64url). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export const digestOf = (id: string): string => createHash('sha256').update(id).digest('base64url');

export class SessionStore implements ConsoleSessions {
  readonly idleMs: number;
  readonly lifetimeMs: number;
  readonly maxSessions: number;
  readonly #clock: Clock;
  /** Insertion order is sign-in order: the oldest sessions sit at the front. */
  readonly #byDigest = new Map<string, Session>();

  constructor(options: SessionStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.idleMs = options.idleMs ?? SESSION_DEFAULTS.idleMs;
    this.lifetimeMs = options.lifetimeMs ?? SESSION_DEFAULTS.lifetimeMs;
    this.maxSessions = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
  }

  get size(): number { return this.#byDigest.size; }

  /** Starts a session for a user who just proved who they are; returns the new cookie value. */
  create(userId: string, email: string): string {
    const now = this.#clock.now();
    if (this.#byDigest.size >= this.maxSessions) this.#makeRoom(now);
    const id = newSessionId();
    this.#byDigest.set(digestOf(id), { userId, email, createdAt: now, lastSeenAt: now });
    return id;
  }

  /** The live session for a cookie value, or undefined; using it postpones its idle end. */
  get(id: string): Session | undefined {
    if (id === '' || id.length > 64) return undefined;
    const digest = digestOf(id);
    const session = this.#byDigest.get(digest);
    if (session === undefined) return undefined;
    const now = this.#clock.now();
    if (this.#ended(session, now)) {
      this.#byDigest.delete(digest);
      return undefined;
    }
    session.lastSeenAt = now;
    return session;
  }

  /** Seconds the cookie should live: until the session's hard end. */
  maxAgeSeconds(session: Session): number {
    return Math.max(0, Math.ceil((session.createdAt + this.lifetimeMs - this.#clock.now()) / 1000));
  }

  destroy(id: string): void {
    this.#byDigest.delete(digestOf(id));
  }

  /** Drops sessions that have ended. Returns how many. */
  sweep(now: number = this.#clock.now()): number {
    let dropped = 0;
    for (const [digest, session] of this.#byDigest) {
      if (!this.#ended(session, now)) continue;
      this.#byDigest.delete(digest);
      dropped++;
    }
    return dropped;
  }

  #ended(session: Session, now: number): boolean {
    return now >= session.lastSeenAt + this.idleMs || now >= session.createdAt + this.lifetimeMs;
  }

  #makeRoom(now: number): void {
    this.sweep(now);
    // Still full of live sessions: drop the oldest tenth so this O(n) pass is rare.
    let excess = this.#byDigest.size - Math.floor(this.maxSessions * 0.9);
    if (this.#byDigest.size < this.maxSessions) return;
    for (const digest of this.#byDigest.keys()) {
      if (excess-- <= 0) break;
      this.#byDigest.delete(digest);
    }
  }
}

// The console's sign-in limit, checked before any password is hashed:
//   per client IP (IPv6 per /64): at most `perIp` sign-in and sign-up attempts per window;
//   per email: at most `perEmail` failed sign-ins per window, cleared by a successful one.
// Fixed windows that open at the first attempt. The per-email limit stops password guessing
// spread over many IPs; the per-IP limit stops one client from trying many accounts (and from
// making the server burn scrypt time). Both tables are bounded; the oldest windows go first.
import { limitKeyForIp } from '../../http/client-ip.js';
import { systemClock, type Clock } from '../../accounts/clock.js';

interface Window { start: number; count: number }

class AttemptWindows {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly maxEntries: number,
    readonly clock: Clock,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  waitSeconds(key: string): number {
    const w = this.#live(key);
    if (w === undefined || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.clock.now()) / 1000));
  }

  hit(key: string): void {
    const w = this.#live(key);
    if (w !== undefined) {
      w.count++;
      return;
    }
    if (this.#windows.size >= this.maxEntries) this.#makeRoom();
    this.#windows.set(key, { start: this.clock.now(), count: 1 });
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }

  #live(key: string): Window | undefined {
    const w = this.#windows.get(key);
    if (w !== undefined && this.clock.now() >= w.start + this.windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return w;
  }

  /** Windows sit in start order: ended ones at the front; past that, the oldest tenth goes. */
  #makeRoom(): void {
    const now = this.clock.now();
    let excess = Math.max(1, Math.floor(this.maxEntries / 10));
    for (const [key, w] of this.#windows) {
      if (now < w.start + this.windowMs && excess-- <= 0) break;
      this.#windows.delete(key);
    }
  }
}

export interface LoginLimiterOptions {
  clock?: Clock;
  perIp?: number;
  perEmail?: number;
  windowMs?: number;
  maxEntries?: number;
}

export const LOGIN_LIMIT_DEFAULTS = Object.freeze({ perIp: 30, perEmail: 5, windowMs: 15 * 60_000, maxEntries: 50_000 });

export class LoginLimiter {
  readonly #byIp: AttemptWindows;
  readonly #failuresByEmail: AttemptWindows;

  constructor(options: LoginLimiterOptions = {}) {
    const clock = options.clock ?? systemClock;
    const windowMs = options.windowMs ?? LOGIN_LIMIT_DEFAULTS.windowMs;
    const maxEntries = options.maxEntries ?? LOGIN_LIMIT_DEFAULTS.maxEntries;
    this.#byIp = new AttemptWindows(options.perIp ?? LOGIN_LIMIT_DEFAULTS.perIp, windowMs, maxEntries, clock);
    this.#failuresByEmail = new AttemptWindows(options.perEmail ?? LOGIN_LIMIT_DEFAULTS.perEmail, windowMs, maxEntries, clock);
  }

  /**
   * Counts one attempt from `ip` for `email` (null for sign-up, which has no password to guess)
   * and returns 0 when it may go ahead, or the seconds to wait when refused (nothing counted).
   */
  begin(ip: string, email: string | null): number {
    const ipKey = limitKeyForIp(ip);
    const wait = Math.max(this.#byIp.waitSeconds(ipKey), email === null ? 0 : this.#failuresByEmail.waitSeconds(email));
    if (wait > 0) return wait;
    this.#byIp.hit(ipKey);
    return 0;
  }

  failed(email: string): void {
    this.#failuresByEmail.hit(email);
  }

  succeeded(email: string): void {
    this.#failuresByEmail.clear(email);
  }
}

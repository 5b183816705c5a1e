// The console's sign-in limit, checked before any password is hashed. No one can lock an owner
// out of their account by failing on purpose:
//   per client IP (IPv6 per /64): at most `perIp` sign-in and sign-up attempts per window, so one
//     client cannot try many accounts (nor make the server burn scrypt time), and at most
//     `signUpsPerIp` sign-ups per `signUpWindowMs` (2 a day), so one client cannot collect free
//     accounts (each with its own quota and streaming sessions);
//   per (account, client IP): the first `freeFailures` failures cost nothing, then each failure
//     doubles the wait before the next attempt from that IP (1 s, 2 s, 4 s … at most `maxDelayMs`),
//     forgotten `forgetMs` after the last one or at a success from that IP. Guessing from one place
//     slows to a crawl; the owner elsewhere is not affected;
//   per account, a generous ceiling on failures from everywhere (`perEmail` per window): past it,
//     only IPs the owner has signed in from (`knownIpMs`) may still try, so spreading guesses over
//     many addresses ends while the owner keeps signing in from home.
// All tables are bounded; the oldest entries go first.
import { limitKeyForIp } from '../../http/client-ip.js';
import { systemClock, type Clock } from '../../accounts/clock.js';
import { AttemptWindows } from './attempt-windows.js';

/**
 * What the console asks of a sign-in limit; the shared one (shared-login-limiter.ts: Redis, several
 * nodes) takes this one's place with REDIS_URL. Results may be promises; the console awaits them.
 */
export interface SignInLimit {
  /** 0 when an attempt from `ip` for `email` (null: a sign-up) may go ahead, else the seconds to wait. */
  begin(ip: string, email: string | null): number | Promise<number>;
  failed(email: string, ip: string): void | Promise<void>;
  succeeded(email: string, ip: string): void | Promise<void>;
}

/** Failures of one account from one client IP: a wait that doubles with each one past the free ones. */
interface Backoff { failures: number; lastAt: number }

export interface LoginLimiterOptions {
  clock?: Clock;
  perIp?: number;
  windowMs?: number;
  signUpsPerIp?: number;
  signUpWindowMs?: number;
  /** Failures from all IPs per account per `ceilingWindowMs` before unknown IPs are turned away. */
  perEmail?: number;
  ceilingWindowMs?: number;
  freeFailures?: number;
  maxDelayMs?: number;
  forgetMs?: number;
  /** How long an IP a user signed in from counts as theirs. */
  knownIpMs?: number;
  maxEntries?: number;
}

export const LOGIN_LIMIT_DEFAULTS = Object.freeze({
  perIp: 30,
  windowMs: 15 * 60_000,
  signUpsPerIp: 2,
  signUpWindowMs: 24 * 3_600_000,
  perEmail: 100,
  ceilingWindowMs: 60 * 60_000,
  freeFailures: 3,
  maxDelayMs: 15 * 60_000,
  forgetMs: 24 * 3_600_000,
  knownIpMs: 30 * 86_400_000,
  maxEntries: 50_000,
});

/** Known IPs kept per account (the most recent); the shared limiter keeps as many. */
export const KNOWN_IPS_PER_ACCOUNT = 5;

export class LoginLimiter implements SignInLimit {
  readonly #clock: Clock;
  readonly #byIp: AttemptWindows;
  readonly #signUpsByIp: AttemptWindows;
  readonly #failuresByEmail: AttemptWindows;
  readonly #freeFailures: number;
  readonly #maxDelayMs: number;
  readonly #forgetMs: number;
  readonly #knownIpMs: number;
  readonly #maxEntries: number;
  /** `${email} ${ip key}` -> its backoff; insertion order is first-failure order. */
  readonly #backoff = new Map<string, Backoff>();
  /** email -> ip key -> last successful sign-in. */
  readonly #knownIps = new Map<string, Map<string, number>>();

  constructor(options: LoginLimiterOptions = {}) {
    const d = LOGIN_LIMIT_DEFAULTS;
    const clock = options.clock ?? systemClock;
    const maxEntries = options.maxEntries ?? d.maxEntries;
    this.#clock = clock;
    this.#byIp = new AttemptWindows(options.perIp ?? d.perIp, options.windowMs ?? d.windowMs, maxEntries, clock);
    this.#signUpsByIp = new AttemptWindows(options.signUpsPerIp ?? d.signUpsPerIp, options.signUpWindowMs ?? d.signUpWindowMs, maxEntries, clock);
    this.#failuresByEmail = new AttemptWindows(options.perEmail ?? d.perEmail, options.ceilingWindowMs ?? d.ceilingWindowMs, maxEntries, clock);
    this.#freeFailures = options.freeFailures ?? d.freeFailures;
    this.#maxDelayMs = options.maxDelayMs ?? d.maxDelayMs;
    this.#forgetMs = options.forgetMs ?? d.forgetMs;
    this.#knownIpMs = options.knownIpMs ?? d.knownIpMs;
    this.#maxEntries = maxEntries;
  }

  /**
   * Counts one attempt from `ip` for `email` (null for sign-up, which has no password to guess)
   * and returns 0 when it may go ahead, or the seconds to wait when refused (nothing counted).
   */
  begin(ip: string, email: string | null): number {
    const ipKey = limitKeyForIp(ip);
    let wait = this.#byIp.waitSeconds(ipKey);
    if (email === null) {
      wait = Math.max(wait, this.#signUpsByIp.waitSeconds(ipKey));
    } else {
      wait = Math.max(wait, this.#backoffSeconds(`${email} ${ipKey}`));
      const ceiling = this.#failuresByEmail.waitSeconds(email);
      if (ceiling > 0 && !this.#isKnownIp(email, ipKey)) wait = Math.max(wait, ceiling);
    }
    if (wait > 0) return wait;
    this.#byIp.hit(ipKey);
    // A sign-up that got this far (its email and password were acceptable) uses up a place.
    if (email === null) this.#signUpsByIp.hit(ipKey);
    return 0;
  }

  failed(email: string, ip: string): void {
    this.#failuresByEmail.hit(email);
    const key = `${email} ${limitKeyForIp(ip)}`;
    const now = this.#clock.now();
    const b = this.#liveBackoff(key, now);
    if (b !== undefined) {
      b.failures++;
      b.lastAt = now;
      return;
    }
    if (this.#backoff.size >= this.#maxEntries) this.#dropOldest(this.#backoff);
    this.#backoff.set(key, { failures: 1, lastAt: now });
  }

  /** The owner proved who they are from `ip`: its backoff ends and it counts as theirs. */
  succeeded(email: string, ip: string): void {
    const ipKey = limitKeyForIp(ip);
    this.#backoff.delete(`${email} ${ipKey}`);
    let known = this.#knownIps.get(email);
    if (known === undefined) {
      if (this.#knownIps.size >= this.#maxEntries) this.#dropOldest(this.#knownIps);
      known = new Map();
      this.#knownIps.set(email, known);
    }
    known.delete(ipKey);
    known.set(ipKey, this.#clock.now());
    if (known.size > KNOWN_IPS_PER_ACCOUNT) known.delete(known.keys().next().value!);
  }

  #backoffSeconds(key: string): number {
    const now = this.#clock.now();
    const b = this.#liveBackoff(key, now);
    if (b === undefined || b.failures < this.#freeFailures) return 0;
    const delay = Math.min(this.#maxDelayMs, 1_000 * 2 ** (b.failures - this.#freeFailures));
    const left = b.lastAt + delay - now;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  #liveBackoff(key: string, now: number): Backoff | undefined {
    const b = this.#backoff.get(key);
    if (b !== undefined && now >= b.lastAt + this.#forgetMs) {
      this.#backoff.delete(key);
      return undefined;
    }
    return b;
  }

  #isKnownIp(email: string, ipKey: string): boolean {
    const at = this.#knownIps.get(email)?.get(ipKey);
    return at !== undefined && this.#clock.now() < at + this.#knownIpMs;
  }

  /** Past the bound: the oldest tenth goes (insertion order), so this runs once per tenth. */
  #dropOldest(map: Map<string, unknown>): void {
    let excess = Math.max(1, Math.floor(this.#maxEntries / 10));
    for (const key of map.keys()) {
      if (excess-- <= 0) break;
      map.delete(key);
    }
  }
}

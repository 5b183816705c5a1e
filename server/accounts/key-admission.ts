// The keyed admission decision, made after authentication and before the body is read: the tier's
// per-minute limit, or the degraded rate once a degrading tier has used its monthly quota. Both
// are the key's account's (KeyRecord.accountId), not the key's own.
import type { KeyRecord } from './key-store.js';
import type { QuotaTracker } from './quota.js';
import type { KeyRateLimiter, RateLimitDecision } from './rate-limiter.js';
import { TIERS } from '../config/tiers.js';

export interface KeyAdmissionDecision extends RateLimitDecision {
  /** False for the unlimited tier: no X-RateLimit-* headers apply. */
  limited: boolean;
  /** Past the monthly quota on a degrading tier: add the QUOTA_EXCEEDED warning when served. */
  quotaExceeded: boolean;
}

export function newKeyAdmissionDecision(): KeyAdmissionDecision {
  return {
    allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0, limited: false, quotaExceeded: false,
  };
}

export class KeyAdmission {
  readonly #limiter: KeyRateLimiter;
  readonly #quota: QuotaTracker;

  constructor(options: { limiter: KeyRateLimiter; quota: QuotaTracker }) {
    this.#limiter = options.limiter;
    this.#quota = options.quota;
  }

  /**
   * Fills and returns `out` (reuse one object per request slot; nothing is allocated here), or,
   * when the limiter must ask a shared store first, a promise of a decision object of its own.
   */
  admit(record: KeyRecord, out: KeyAdmissionDecision = newKeyAdmissionDecision()): KeyAdmissionDecision | Promise<KeyAdmissionDecision> {
    if (this.#unlimited(record, out)) return out;
    const degraded = this.#degraded(record);
    const checked = this.#limiter.check(record.accountId, this.#limitOf(record, degraded), out);
    if (!(checked instanceof Promise)) return this.#finish(out, degraded);
    return checked.then((later) => this.#finish(Object.assign(newKeyAdmissionDecision(), later), degraded));
  }

  /** What admit() would find for `record` right now, without counting a request. */
  peek(record: KeyRecord, out: KeyAdmissionDecision = newKeyAdmissionDecision()): KeyAdmissionDecision {
    if (this.#unlimited(record, out)) return out;
    const degraded = this.#degraded(record);
    this.#limiter.peek(record.accountId, this.#limitOf(record, degraded), out);
    return this.#finish(out, degraded);
  }

  #finish(out: KeyAdmissionDecision, degraded: boolean): KeyAdmissionDecision {
    out.limited = true;
    out.quotaExceeded = degraded;
    return out;
  }

  /** The unlimited tier: fills `out` as admitted with no limit (no headers) and says so. */
  #unlimited(record: KeyRecord, out: KeyAdmissionDecision): boolean {
    const tier = TIERS[record.tier];
    if (tier.perMinute === null) {
      out.allowed = true;
      out.limited = false;
      out.quotaExceeded = false;
      out.limit = 0;
      out.remaining = 0;
      out.resetSeconds = 0;
      out.retryAfterSeconds = 0;
      return true;
    }
    return false;
  }

  // Per account: a console user's keys share one rate and one quota, so more keys buy nothing.
  #degraded(record: KeyRecord): boolean {
    const tier = TIERS[record.tier];
    return tier.overage === 'degraded' && this.#quota.isExceeded(record.accountId, tier);
  }

  #limitOf(record: KeyRecord, degraded: boolean): number {
    const tier = TIERS[record.tier];
    return degraded && tier.degradedPerMinute !== null ? tier.degradedPerMinute : tier.perMinute!;
  }
}

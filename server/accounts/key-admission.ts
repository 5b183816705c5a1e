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

  /** Fills and returns `out`, a new decision unless the caller passes one. */
  admit(record: KeyRecord, out: KeyAdmissionDecision = newKeyAdmissionDecision()): KeyAdmissionDecision {
    return this.#decide(record, out, true);
  }

  /** What admit() would find for `record` right now, without counting a request. */
  peek(record: KeyRecord, out: KeyAdmissionDecision = newKeyAdmissionDecision()): KeyAdmissionDecision {
    return this.#decide(record, out, false);
  }

  #decide(record: KeyRecord, out: KeyAdmissionDecision, count: boolean): KeyAdmissionDecision {
    const tier = TIERS[record.tier];
    if (tier.perMinute === null) {
      out.allowed = true;
      out.limited = false;
      out.quotaExceeded = false;
      out.limit = 0;
      out.remaining = 0;
      out.resetSeconds = 0;
      out.retryAfterSeconds = 0;
      return out;
    }
    // Per account: a console user's keys share one rate and one quota, so more keys buy nothing.
    const degraded = tier.overage === 'degraded' && this.#quota.isExceeded(record.accountId, tier);
    const limit = degraded && tier.degradedPerMinute !== null ? tier.degradedPerMinute : tier.perMinute;
    if (count) this.#limiter.check(record.accountId, limit, out);
    else this.#limiter.peek(record.accountId, limit, out);
    out.limited = true;
    out.quotaExceeded = degraded;
    return out;
  }
}

// The server's admission hook (server/http/admission-hook.ts) backed by the accounts layer. A keyed
// request gets its tier's GCRA limit, or the degraded rate plus QUOTA_EXCEEDED once a degrading
// tier has used its monthly quota; the demo gets its per-IP hourly window. Limited answers carry
// X-RateLimit-Limit / -Remaining / -Reset, refusals also Retry-After. In-memory state decides,
// except where a shared limiter must hear from Redis first (a promise: shared-rate-limiter.ts, shared-demo-limiter.ts).
import { makeError, makeWarning } from '../contracts/error-codes.js';
import { TIERS } from '../config/tiers.js';
import type { RepairError, Warning } from '../../engine/types.js';
import type { AdmissionDecision, AdmissionHook } from '../http/admission-hook.js';
import type { HeaderList } from '../http/response-writer.js';
import { newKeyAdmissionDecision, type KeyAdmission, type KeyAdmissionDecision } from './key-admission.js';
import { limitKeyForIp } from '../http/client-ip.js';
import type { DemoRateLimiter } from './demo-limiter.js';
import type { KeyRecord } from './key-store.js';
import { newDecision, RateLimiter, type RateLimitDecision } from './rate-limiter.js';
import { systemClock, type Clock } from './clock.js';

export interface RequestAdmissionOptions {
  keyed: KeyAdmission;
  demo: DemoRateLimiter;
  /** Route name of the keyless demo endpoint (server/batch/repair-route.ts). */
  demoRoute?: string;
  /**
   * Routes inside a streaming session (push, finalize): the session was counted once, at its start,
   * and its pushes have their own rate (server/streaming/push-rate.ts). They carry the X-RateLimit-*
   * headers as they stand, read without counting.
   */
  sessionRoutes?: readonly string[];
  clock?: Clock;
}

const ADMITTED: AdmissionDecision = Object.freeze({ allowed: true, headers: null, warnings: null });
// One frozen warning list per degraded rate of the tier table, its message naming the rate.
const QUOTA_WARNINGS: ReadonlyMap<number, readonly Warning[]> = new Map(Object.values(TIERS)
  .filter((tier) => tier.degradedPerMinute !== null)
  .map((tier) => [tier.degradedPerMinute!, Object.freeze([Object.freeze(makeWarning('QUOTA_EXCEEDED',
    `The monthly repair quota is used up; service is degraded to ${tier.degradedPerMinute} requests per minute, a tenth of the tier's rate.`))])]));
const QUOTA_WARNING = Object.freeze([Object.freeze(makeWarning('QUOTA_EXCEEDED'))]);

export class RequestAdmission implements AdmissionHook {
  // The demo is keyed by client IP; computing it costs a header read and an address decode.
  readonly needsClientIp = true;
  readonly #keyed: KeyAdmission;
  readonly #demo: DemoRateLimiter;
  readonly #demoRoute: string;
  readonly #sessionRoutes: ReadonlySet<string>;
  /**
   * Session calls that named no open session, per account, at the tier's per-minute rate: past it
   * the account's pushes and finalizes are refused before their body is read, so a key cannot send
   * bodies to made-up sessions faster than it could send requests (on this node).
   */
  readonly #unmatched: RateLimiter;
  readonly #unmatchedDecision = newDecision();
  // Filled and read synchronously inside admit() (a decision that comes later has its own object).
  readonly #keyDecision = newKeyAdmissionDecision();
  readonly #demoDecision = newDecision();

  constructor(options: RequestAdmissionOptions) {
    this.#keyed = options.keyed;
    this.#demo = options.demo;
    this.#demoRoute = options.demoRoute ?? 'demo';
    this.#sessionRoutes = new Set(options.sessionRoutes ?? ['stream_push', 'stream_finalize']);
    this.#unmatched = new RateLimiter({ clock: options.clock ?? systemClock });
  }

  admit(route: string, key: KeyRecord | undefined, clientIp: string): AdmissionDecision | Promise<AdmissionDecision> {
    if (key !== undefined) {
      if (this.#sessionRoutes.has(route)) return this.#sessionCall(key);
      const d = this.#keyed.admit(key, this.#keyDecision);
      return d instanceof Promise ? d.then((later) => keyAnswer(key, later)) : keyAnswer(key, d);
    }
    if (route === this.#demoRoute) {
      const d = this.#demo.check(limitKeyForIp(clientIp), this.#demoDecision);
      return d instanceof Promise ? d.then(demoAnswer) : demoAnswer(d);
    }
    return ADMITTED;
  }

  unmatched(route: string, key: KeyRecord): void {
    const limit = TIERS[key.tier].perMinute;
    if (limit !== null && this.#sessionRoutes.has(route)) this.#unmatched.check(key.accountId, limit, this.#unmatchedDecision);
  }

  /** A push or finalize: not counted, unless the account's calls to no open session are past its rate. */
  #sessionCall(key: KeyRecord): AdmissionDecision {
    const limit = TIERS[key.tier].perMinute;
    if (limit !== null) {
      const d = this.#unmatched.peek(key.accountId, limit, this.#unmatchedDecision);
      if (!d.allowed) {
        return refusal(makeError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: more than ${limit} pushes or finalizes a minute named no open streaming session. Retry in ${d.retryAfterSeconds} s.`), d);
      }
    }
    return admittedAnswer(this.#keyed.peek(key, this.#keyDecision));
  }

  refund(route: string, clientIp: string): HeaderList | null {
    if (route !== this.#demoRoute) return null;
    return limitHeaders(this.#demo.refund(limitKeyForIp(clientIp), this.#demoDecision));
  }
}

function keyAnswer(key: KeyRecord, d: KeyAdmissionDecision): AdmissionDecision {
  if (d.allowed) return admittedAnswer(d);
  const rate = d.quotaExceeded ? `the degraded rate of ${d.limit} requests per minute (monthly quota used up)` : `${d.limit} requests per minute`;
  const who = key.accountId === key.id ? 'this key allows' : "this account's keys together allow";
  return refusal(makeError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: ${who} ${rate}. Retry in ${d.retryAfterSeconds} s.`), d);
}

/** Admitted (a push or finalize always is): the headers, and QUOTA_EXCEEDED past a degrading tier's quota. */
function admittedAnswer(d: KeyAdmissionDecision): AdmissionDecision {
  if (!d.limited) return ADMITTED; // the unlimited tier: no limit, no headers
  return { allowed: true, headers: limitHeaders(d), warnings: d.quotaExceeded ? (QUOTA_WARNINGS.get(d.limit) ?? QUOTA_WARNING) : null };
}

function demoAnswer(d: RateLimitDecision): AdmissionDecision {
  if (d.allowed) return { allowed: true, headers: limitHeaders(d), warnings: null };
  const message = d.limit === 0
    ? 'The demo is turned off on this server; use an API key.'
    : `Demo limit exceeded: ${d.limit} requests per hour per IP address. Retry in ${d.retryAfterSeconds} s, or use an API key.`;
  return refusal(makeError('RATE_LIMIT_EXCEEDED', message), d);
}

export function limitHeaders(d: RateLimitDecision): HeaderList {
  return [
    ['X-RateLimit-Limit', String(d.limit)],
    ['X-RateLimit-Remaining', String(d.remaining)],
    ['X-RateLimit-Reset', String(d.resetSeconds)],
  ];
}

function refusal(error: RepairError, d: RateLimitDecision): AdmissionDecision {
  const headers: HeaderList = [...limitHeaders(d), ['Retry-After', String(d.retryAfterSeconds)]];
  return { allowed: false, error, retryAfterSeconds: d.retryAfterSeconds, headers };
}

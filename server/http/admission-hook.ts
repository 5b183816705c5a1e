// The admission hook: after authentication and before the body is read, decide whether a request
// may proceed. The accounts layer (rate limits, quotas, the demo's per-IP limit) plugs in here;
// without it every request is admitted. Decisions are synchronous on the hot path; a decision that
// needs a shared store first (a node with no rate-limit lease in hand) comes as a promise, and the
// body is read meanwhile.
import type { RepairError, Warning } from '../../engine/types.js';
import type { KeyRecord } from './authentication-hook.js';
import type { HeaderList } from './response-writer.js';

export type AdmissionDecision =
  | {
      allowed: true;
      /** Added to the answer, e.g. X-RateLimit-Limit / -Remaining / -Reset. */
      headers: HeaderList | null;
      /** Added to a successful repair's warnings, e.g. QUOTA_EXCEEDED (degraded service). */
      warnings: readonly Warning[] | null;
    }
  | {
      allowed: false;
      /** Normally makeError('RATE_LIMIT_EXCEEDED'). */
      error: RepairError;
      /** Seconds until a retry can succeed: the compact contract's `retryAfter`. */
      retryAfterSeconds: number;
      headers: HeaderList | null;
    };

export interface AdmissionHook {
  /**
   * When false the client IP is not computed (it costs a header read and an address decode). It is
   * computed for keyless requests only: keyed ones are limited per key.
   */
  readonly needsClientIp: boolean;
  /** `key` is undefined on keyless routes (the demo); `clientIp` is '' when not computed. */
  admit(route: string, key: KeyRecord | undefined, clientIp: string): AdmissionDecision | Promise<AdmissionDecision>;
  /**
   * A keyless request `admit` allowed was not served (its body malformed or too large, the server
   * full): what it counted is given back. Returns the answer's headers as they now stand, or null.
   */
  refund?(route: string, clientIp: string): HeaderList | null;
  /**
   * A request inside a streaming session (push, finalize), which admission does not count, named
   * no open session of its key: it is charged after all, so such calls cannot come without limit.
   */
  unmatched?(route: string, key: KeyRecord): void;
}

const ADMITTED: AdmissionDecision = Object.freeze({ allowed: true, headers: null, warnings: null });

export const ADMIT_ALL: AdmissionHook = Object.freeze({
  needsClientIp: false,
  admit: () => ADMITTED,
});

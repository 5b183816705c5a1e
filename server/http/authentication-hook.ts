// The authentication hook: who a keyed request's `Authorization` header names, asked before the
// body is read. The accounts layer (its key stores) plugs in here, as it does into the admission
// hook, so the HTTP layer knows what a caller is without knowing where keys are kept.
import type { RepairError } from '../../engine/types.js';
import type { TierName } from '../config/tiers.js';

/** The caller a key stands for. */
export interface KeyRecord {
  /** Stable, non-secret id: limiter and quota state and the metadata log are keyed by it. */
  id: string;
  tier: TierName;
  /** Display prefix, e.g. `sk_live_AbCd`; never the whole key. */
  prefix: string;
  /**
   * Whose limits the key draws on: monthly usage, the per-minute rate and open streaming sessions
   * are counted under it. The owning user's id for keys made in the console (so rotating a key
   * starts nothing afresh), the key's own id for operator keys that belong to no account.
   */
  accountId: string;
}

export type AuthResult = { ok: true; key: KeyRecord } | { ok: false; error: RepairError };

export interface AuthenticationHook {
  /**
   * `header` is the raw header value; uWS gives '' when it is absent. Synchronous for a key held in
   * memory and for every malformed header; a Promise only while a backing store is asked about a key
   * not held in memory. May throw: the caller answers INTERNAL_ERROR.
   */
  authenticate(header: string): AuthResult | Promise<AuthResult>;
}

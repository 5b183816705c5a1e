// The key-store contract the HTTP server authenticates with. It mirrors server/auth/key-store.ts
// structurally (same field names and types), so CachedKeyStore can be handed to the server as is.

export const TIER_NAMES = ['free', 'pro', 'team', 'scale', 'unlimited'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface KeyRecord {
  /** Stable key id (not secret); used for limiter/quota state and the metadata log. */
  id: string;
  tier: TierName;
  /** Display prefix shown in `npm run key -- list`, e.g. `sk_live_AbCd`. */
  prefix: string;
}

export interface KeyStore {
  /** Synchronous: the request path never waits for storage. */
  lookup(key: string): KeyRecord | undefined;
}

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}

// The key-store contract comes from the server (server/auth/key-store.ts), so CachedKeyStore is
// handed to the server as is; the accounts layer adds the tier list and its guard.
export type { KeyRecord, KeyStore, TierName } from '../auth/key-store.js';
import type { TierName } from '../auth/key-store.js';

export const TIER_NAMES = ['free', 'pro', 'team', 'scale', 'unlimited'] as const satisfies readonly TierName[];

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}

// The key-store contract comes from the server (server/accounts/key-store.ts), so CachedKeyStore is
// handed to the server as is. The tier names are listed here, once: API_KEYS parsing, the key CLI
// and the tier table (tiers.ts) all read this list.
export type { KeyRecord, KeyStore } from './key-store.js';

export const TIER_NAMES = ['free', 'pro', 'team', 'scale', 'unlimited'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}

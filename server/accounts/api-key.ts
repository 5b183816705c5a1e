// API key format and hashing. A key is shown in full once, at creation; storage only ever sees its
// SHA-256 (hex) and a short display prefix.
import { createHash, randomBytes } from 'node:crypto';
import { isTierName, type TierName } from './key-record.js';

export const LIVE_KEY_PREFIX = 'sk_live_';
export const KEY_RANDOM_CHARS = 32; // 32 base62 characters = 190 bits
/** Longest key accepted anywhere; bounds the hashing work an Authorization header can cause. */
export const MAX_KEY_LENGTH = 256;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `count` base62 characters from the CSPRNG, by rejection sampling (no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    const bytes = randomBytes(count * 2);
    for (let i = 0; i < bytes.length && out.length < count; i++) {
      const b = bytes[i]!;
      if (b < 248) out += BASE62[b % 62]; // 248 = 4 * 62
    }
  }
  return out;
}

export function generateApiKey(): string {
  return LIVE_KEY_PREFIX + randomBase62(KEY_RANDOM_CHARS);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * What `key list` shows. Live keys: `sk_live_` + 4 random characters (24 of 190 bits). Other keys
 * (operator keys from API_KEYS may be short) reveal only their first 4 characters.
 */
export function displayPrefix(key: string): string {
  return key.startsWith(LIVE_KEY_PREFIX) ? key.slice(0, LIVE_KEY_PREFIX.length + 4) : key.slice(0, 4);
}

export function newKeyId(): string {
  return 'key_' + randomBase62(16);
}

export interface SeedKey { key: string; tier: TierName }

/** Parses API_KEYS (`key:tier,key:tier`); throws a message naming the bad entry. */
export function parseApiKeys(value: string | undefined): SeedKey[] {
  if (value === undefined || value.trim() === '') return [];
  const seeds: SeedKey[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const colon = entry.lastIndexOf(':');
    const key = colon > 0 ? entry.slice(0, colon).trim() : '';
    const tier = colon > 0 ? entry.slice(colon + 1).trim() : '';
    const shown = key.length > 4 ? key.slice(0, 4) + '…' : key;
    if (key === '' || !isTierName(tier)) {
      throw new Error(`API_KEYS: entry "${shown}:${tier}" must be key:tier with tier one of free, pro, team, scale, unlimited`);
    }
    if (key.length > MAX_KEY_LENGTH || /\s/.test(key)) {
      throw new Error(`API_KEYS: key "${shown}" must be at most ${MAX_KEY_LENGTH} characters without spaces`);
    }
    seeds.push({ key, tier });
  }
  return seeds;
}

// API key format and hashing. A key is shown in full once, at creation; storage only ever sees its
// SHA-256 (hex) and a short display prefix.
import { hash, randomBytes } from 'node:crypto';

export const LIVE_KEY_PREFIX = 'sk_live_';
export const KEY_RANDOM_CHARS = 32; // 32 base62 characters = 190 bits

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

/** A key's SHA-256: the key stores compare these with timingSafeEqual. */
export function keyDigest(key: string): Buffer {
  // The one-shot crypto.hash costs about half of createHash().update().digest() for a key.
  return hash('sha256', key, 'buffer');
}

/** What storage keeps of a key: its SHA-256 in hex. */
export function hashApiKey(key: string): string {
  return keyDigest(key).toString('hex');
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

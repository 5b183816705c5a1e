// `Authorization: Bearer <key>` -> the key's record, or the reason it was refused.
import { makeError } from '../contracts/error-codes.js';
import type { AuthenticationHook, AuthResult } from '../http/authentication-hook.js';
import type { KeyRecord, KeyStore } from './key-store.js';

const MISSING = makeError('INVALID_API_KEY', 'Missing Authorization header; send "Authorization: Bearer <API_KEY>".');
const MALFORMED = makeError('INVALID_API_KEY', 'Malformed Authorization header; expected "Bearer <API_KEY>".');
const UNKNOWN = makeError('INVALID_API_KEY');

const REFUSED: AuthResult = Object.freeze({ ok: false, error: UNKNOWN });
const settle = (record: KeyRecord | undefined): AuthResult => (record === undefined ? REFUSED : { ok: true, key: record });

/** The credential of `Bearer <credential>`, or null when the header is not that. */
export function bearerCredential(header: string): string | null {
  // The scheme is case-insensitive (RFC 9110 §11.1); exactly one space-separated credential.
  if (header.length < 8 || (!header.startsWith('Bearer ') && header.slice(0, 7).toLowerCase() !== 'bearer ')) return null;
  const credential = header.slice(7).trim();
  return credential === '' || /\s/.test(credential) ? null : credential;
}

/**
 * `header` is the raw header value; uWS gives '' when it is absent. Synchronous for a key the store
 * holds in memory and for every malformed header; a Promise only while the store is asked about a
 * key it does not hold (KeyStore.lookupMiss).
 */
export function authenticate(header: string, store: KeyStore): AuthResult | Promise<AuthResult> {
  if (header === '') return { ok: false, error: MISSING };
  const key = bearerCredential(header);
  if (key === null) return { ok: false, error: MALFORMED };
  const record = store.lookup(key);
  if (record !== undefined) return { ok: true, key: record };
  const asked = store.lookupMiss?.(key);
  return asked === undefined ? REFUSED : asked.then(settle);
}

/** The HTTP layer's authentication hook, answered by `store`. */
export function keyAuthentication(store: KeyStore): AuthenticationHook {
  return { authenticate: (header) => authenticate(header, store) };
}

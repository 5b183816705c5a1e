// CSRF protection for the console API. Every browser holds a `jm_sid` cookie (HttpOnly,
// SameSite=Strict): a signed-in session's id, or before sign-in a random id the server does not
// store. The CSRF token is HMAC-SHA256(server secret, that cookie value): the page reads it from
// GET /console/api/session and sends it back in the X-CSRF-Token header on every state-changing
// request. Another site can neither read the token nor send the header cross-origin without a CORS
// preflight (which is never granted), and signing in issues a new id, so a token never outlives
// its session. Origin and Sec-Fetch-Site, when the browser sends them, must also say same-origin.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_HEADER = 'x-csrf-token';

export class CsrfGuard {
  readonly #secret: Buffer;

  constructor(secret: Buffer = randomBytes(32)) {
    this.#secret = secret;
  }

  tokenFor(sid: string): string {
    return createHmac('sha256', this.#secret).update(sid).digest('base64url');
  }

  /** Constant-time check of the header against the cookie's token. */
  verify(sid: string, token: string): boolean {
    if (sid === '' || token === '' || token.length > 128) return false;
    const expected = Buffer.from(this.tokenFor(sid));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/**
 * False when the browser says the request came from another origin. Headers a browser did not send
 * (old browsers, or a non-browser client) do not count against it; the token check still applies.
 */
export function looksSameOrigin(origin: string, secFetchSite: string, host: string): boolean {
  if (secFetchSite !== '' && secFetchSite !== 'same-origin') return false;
  if (origin === '') return true;
  if (origin === 'null') return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

// The console's one cookie. HttpOnly (page scripts never see it), SameSite=Strict (no other site's
// request carries it), Path=/console (sent to the console only), and Secure when the request came
// over HTTPS (the TLS-terminating proxy says so in X-Forwarded-Proto; a client that fakes it only
// makes its own cookie unusable over plain HTTP).
export const SESSION_COOKIE = 'jm_sid';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{16,64}$/;

/** The `jm_sid` value from a Cookie header, or '' when absent or malformed. */
export function sessionIdFrom(cookieHeader: string): string {
  if (cookieHeader === '') return '';
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return COOKIE_VALUE.test(value) ? value : '';
  }
  return '';
}

/** `maxAgeSeconds` null makes a browser-session cookie (the anonymous pre-sign-in id). */
export function sessionCookie(value: string, maxAgeSeconds: number | null, secure: boolean): string {
  let cookie = `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict`;
  if (maxAgeSeconds !== null) cookie += `; Max-Age=${maxAgeSeconds}`;
  if (secure) cookie += '; Secure';
  return cookie;
}

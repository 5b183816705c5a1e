// Headers on every HTML page. The pages load only their own scripts and styles and talk only to
// this origin, so the policy allows 'self' and nothing else: no inline script or style, no
// framing (clickjacking on the console), no <base> tricks, forms post only here.
import type { HeaderList } from '../http/response-writer.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_SECURITY_HEADERS: HeaderList = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];

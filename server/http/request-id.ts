// Request ids: a caller's own X-Request-ID is kept when it is short and of safe characters (so a
// trace crosses proxies); otherwise a per-process random prefix plus a counter, cheap and unique.
import { randomBytes } from 'node:crypto';

const PREFIX = randomBytes(6).toString('base64url');
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
let counter = 0;

export function requestIdFor(incoming: string): string {
  if (incoming !== '' && SAFE_ID.test(incoming)) return incoming;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PREFIX}-${counter.toString(36)}`;
}

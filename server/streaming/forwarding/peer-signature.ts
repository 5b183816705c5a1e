// Forwarded requests between nodes are authenticated with CLUSTER_SECRET: an HMAC-SHA256 over the
// send time and every field the owner acts on (endpoint, contract, key id, session id, warnings and
// the chunk's bytes). The owner refuses a missing or wrong signature, and one whose time is more than
// PEER_CLOCK_WINDOW_MS away from its own clock, so a captured request is useless soon after.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Clock difference tolerated between nodes (NTP keeps machines well within this). */
export const PEER_CLOCK_WINDOW_MS = 10_000;

/** The header fields of a forwarded stream request, as sent (each already header-safe). */
export interface PeerFields {
  endpoint: string;
  contract: string;
  keyId: string;
  sessionId: string;
  /** JSON of the admission warnings (finalize), '' when none. */
  warnings: string;
}

export function peerSignature(secret: string, time: string, fields: PeerFields, body: Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${time}\n${fields.endpoint}\n${fields.contract}\n${fields.keyId}\n${fields.sessionId}\n${fields.warnings}\n`);
  hmac.update(body);
  return hmac.digest('hex');
}

/** True when `signature` is this secret's signature of the request and `time` is recent. */
export function verifyPeerSignature(secret: string, time: string, signature: string, fields: PeerFields, body: Uint8Array, now = Date.now()): boolean {
  const sent = Number(time);
  if (!/^[0-9]{1,15}$/.test(time) || Math.abs(now - sent) > PEER_CLOCK_WINDOW_MS) return false;
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(peerSignature(secret, time, fields, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

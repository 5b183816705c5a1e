// Forwarded requests between nodes are authenticated with CLUSTER_SECRET: an HMAC-SHA256 over the
// send time, a nonce, every field the owner acts on (endpoint, contract, key id, session id,
// warnings) and the body's length and SHA-256. Everything signed travels in headers, so the owner
// checks the signature before it reads a byte of the body (a stranger's request is refused unread)
// and the body afterwards against the signed digest. The owner refuses a missing or wrong signature,
// a time more than PEER_CLOCK_WINDOW_MS away from its own clock, and a nonce it has already
// accepted (peer-replay.ts): a captured forward is accepted once, and useless soon after.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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

/** What binds a signature to one sending and to its body. */
export interface PeerStamp {
  /** Send time, ms since the epoch, in decimal. */
  time: string;
  /** `<sender>:<sequence>` (peer-replay.ts). */
  nonce: string;
  /** The body's length in bytes (its Content-Length). */
  length: number;
  /** SHA-256 of the body, hex. */
  digest: string;
}

const TIME = /^[0-9]{1,15}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export function bodyDigest(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

export function peerSignature(secret: string, stamp: PeerStamp, fields: PeerFields): string {
  return createHmac('sha256', secret)
    .update(`${stamp.time}\n${stamp.nonce}\n${stamp.length}\n${stamp.digest}\n${fields.endpoint}\n${fields.contract}\n${fields.keyId}\n${fields.sessionId}\n${fields.warnings}`)
    .digest('hex');
}

/** True when `signature` is this secret's signature of these headers and `stamp.time` is recent. Reads no body. */
export function verifyPeerSignature(secret: string, stamp: PeerStamp, signature: string, fields: PeerFields, now = Date.now()): boolean {
  if (!TIME.test(stamp.time) || Math.abs(now - Number(stamp.time)) > PEER_CLOCK_WINDOW_MS) return false;
  if (!HEX64.test(signature) || !HEX64.test(stamp.digest)) return false;
  const expected = Buffer.from(peerSignature(secret, stamp, fields), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** True when `body` is the body a verified stamp was signed for. */
export function bodyMatches(stamp: PeerStamp, body: Uint8Array): boolean {
  return body.byteLength === stamp.length && timingSafeEqual(Buffer.from(bodyDigest(body), 'hex'), Buffer.from(stamp.digest, 'hex'));
}

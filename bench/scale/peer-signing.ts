// `node dist/bench/scale/peer-signing.js`: the CPU a forward's authentication costs, both sides
// together (the forwarding node signs, the owner verifies the headers, checks the nonce and the
// body's digest), for an 86-byte push as bench:scale sends it. Beside it, the earlier scheme (one
// HMAC over the headers and the body, no nonce) for scale: the difference is what accepting each
// forward once and refusing strangers unread costs per forward (docs/scaling.md "Between nodes").
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PeerReplayGuard } from '../../server/streaming/forwarding/peer-replay.js';
import { bodyDigest, bodyMatches, peerSignature, verifyPeerSignature, type PeerStamp } from '../../server/streaming/forwarding/peer-signature.js';
import { printTable } from '../lib/table.js';

const SECRET = 'bench-cluster-secret-0123456789';
const fields = { endpoint: 'push', contract: 'envelope', keyId: 'k_0123456789abcdef', sessionId: 'node-a.AAAAAAAAAAAAAAAAAAAAAA', warnings: '' };
const body = Buffer.from('{"name": "Ada", "tags": ["x", "y"], "n": 12.5, "open": [1, 2, 3, 4], "more": "text to 86 b"', 'utf16le');

function headersAndBodyHmac(time: string): string {
  return createHmac('sha256', SECRET)
    .update(`${time}\n${fields.endpoint}\n${fields.contract}\n${fields.keyId}\n${fields.sessionId}\n${fields.warnings}\n`)
    .update(body)
    .digest('hex');
}

function earlier(): boolean {
  const time = String(Date.now());
  const signature = headersAndBodyHmac(time);
  return timingSafeEqual(Buffer.from(headersAndBodyHmac(time), 'hex'), Buffer.from(signature, 'hex'));
}

const guard = new PeerReplayGuard();
let sequence = 0;
function current(): boolean {
  const stamp: PeerStamp = { time: String(Date.now()), nonce: `bench-sender:${++sequence}`, length: body.byteLength, digest: bodyDigest(body) };
  const signature = peerSignature(SECRET, stamp, fields);
  return verifyPeerSignature(SECRET, stamp, signature, fields) && guard.accept(stamp.nonce) && bodyMatches(stamp, body);
}

function cpuMicrosEach(fn: () => boolean, n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) if (!fn()) throw new Error('a forward was refused');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

for (let i = 0; i < 3; i++) {
  cpuMicrosEach(earlier, 20_000);
  cpuMicrosEach(current, 20_000);
}
const rows: string[][] = [];
for (let round = 1; round <= 5; round++) {
  const before = cpuMicrosEach(earlier, 50_000);
  const now = cpuMicrosEach(current, 50_000);
  rows.push([String(round), before.toFixed(1), now.toFixed(1), (now - before).toFixed(1)]);
}
printTable(['round', 'one HMAC over headers and body, µs', 'signed headers + nonce + digest, µs', 'difference, µs'], rows);

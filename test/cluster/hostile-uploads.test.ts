// A stranger cannot fill a node's memory with bodies it will refuse. On two real nodes (Redis,
// PostgreSQL): the peer endpoint on the public port refuses an unsigned request from its headers,
// before a byte of its body is read; /v1/repair refuses a wrong key once the first 4 KiB (what the
// answer's contract is judged by) are in, without the rest; and 16 connections uploading such
// bodies in full leave the node's resident memory where it was. The measured figure is
// bench/http/hostile-uploads.ts's (docs/reliability.md "Hostile uploads").
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { PEER_HEADERS, PEER_PATH } from '../../server/streaming/forwarding/peer-client.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { type StartedServer } from '../helpers/start-server.js';
import { startCluster } from './cluster-helpers.js';

const KEY = 'hostile-uploads-key-a';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited` } });
const [a] = cluster.nodes as [StartedServer, StartedServer];
const MiB = 1024 * 1024;
const host = new URL(a.url).host;

/** Resolves with the answer, or rejects after `ms` (a server waiting for a body never sent). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

const peerHead = (length: string): string => `POST ${PEER_PATH} HTTP/1.1\r\nHost: ${host}\r\n${length}`
  + `${PEER_HEADERS.endpoint}: push\r\n${PEER_HEADERS.contract}: envelope\r\n${PEER_HEADERS.keyId}: k\r\n${PEER_HEADERS.sessionId}: s\r\n`
  + `${PEER_HEADERS.time}: ${Date.now()}\r\n${PEER_HEADERS.nonce}: attacker:1\r\n${PEER_HEADERS.digest}: ${'0'.repeat(64)}\r\n${PEER_HEADERS.signature}: ${'0'.repeat(64)}\r\n\r\n`;

const repairHead = (key: string, length: number): string => `POST /v1/repair HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\n`
  + `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** The first `bytes` of a body that would be a valid compact request, then stops sending. */
function sendOnly(bytes: number): (socket: import('node:net').Socket) => number {
  let sent = false;
  return (socket) => {
    if (sent) return 0;
    sent = true;
    const start = '{"content": "';
    socket.write(start + 'x'.repeat(bytes - start.length));
    return bytes;
  };
}

t.test('the peer endpoint refuses an unsigned request from its headers, the body never sent', async (t) => {
  const answer = await within(5_000, rawRequest(a.url, peerHead(`Content-Length: ${62 * MiB}\r\n`)));
  t.equal(answer.status, 401);
  t.equal(answer.bytesSent, 0, 'answered with no byte of the body sent');
  const chunked = await within(5_000, rawRequest(a.url, peerHead('Transfer-Encoding: chunked\r\n')));
  t.equal(chunked.status, 400, 'a forward without Content-Length (chunked) is refused at once too');
});

t.test('/v1/repair refuses a wrong key once the contract window is in, the rest never sent', async (t) => {
  // A key the node does not hold in memory is asked about in PostgreSQL (asynchronously): still refused early.
  for (const key of ['not-a-key-at-all', `jm_${'z'.repeat(40)}`]) {
    const answer: RawAnswer = await within(5_000, rawRequest(a.url, repairHead(key, 31 * MiB), sendOnly(4 * 1024)));
    t.match(JSON.parse(answer.body), { errors: [{ code: 'INVALID_API_KEY' }] }, `${key}: refused in the compact shape the first 4 KiB show`);
    t.equal(answer.bytesSent, 4 * 1024, 'after 4 KiB of 31 MiB');
  }
  const body = '{"content": "[1, 2"}';
  const small = await within(5_000, rawRequest(a.url, repairHead('not-a-key', body.length), (socket) => (socket.write(body), 0)));
  t.match(JSON.parse(small.body), { errors: [{ code: 'INVALID_API_KEY' }] }, 'a small body is judged whole, as before');
});

/** Opens a connection, sends `head` and then `bodyBytes` of body whatever the server says; resolves when all is written or the connection ends. */
function uploadRegardless(head: string, bodyBytes: number): Promise<void> {
  const { hostname, port } = new URL(a.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunk = Buffer.alloc(MiB, 0x78);
    let left = bodyBytes;
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', () => {});
    const pump = (): void => {
      while (left > 0) {
        const part = left >= chunk.byteLength ? chunk : chunk.subarray(0, left);
        left -= part.byteLength;
        if (!socket.write(part)) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.end(() => resolve());
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

t.test('16 connections uploading refused bodies in full leave resident memory where it was', async (t) => {
  const before = rssOf(a.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(a.pid))), 50);
  const uploads: Promise<void>[] = [];
  for (let i = 0; i < 8; i++) uploads.push(uploadRegardless(peerHead(`Content-Length: ${24 * MiB}\r\n`), 24 * MiB));
  for (let i = 0; i < 8; i++) uploads.push(uploadRegardless(repairHead('not-a-key-at-all', 24 * MiB), 24 * MiB));
  await Promise.all(uploads);
  clearInterval(sampler);
  const after = rssOf(a.pid);
  t.comment(`RSS ${Math.round(before / MiB)} MiB before, ${Math.round(peak / MiB)} MiB at peak, ${Math.round(after / MiB)} MiB after 16 × 24 MiB refused uploads`);
  // Read and held, these bodies would be 384 MiB; a margin for the collector's own timing.
  t.ok(peak - before < 96 * MiB, `peak growth ${Math.round((peak - before) / MiB)} MiB`);
  t.ok(after - before < 64 * MiB, `growth after ${Math.round((after - before) / MiB)} MiB`);
  t.equal((await fetch(`${a.url}/health`)).status, 200, 'the node serves on');
});

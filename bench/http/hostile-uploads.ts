// `npm run bench:hostile`: what strangers' refused uploads cost a node's memory. One node with
// REDIS_URL (so the peer endpoint is mounted); 16 connections at once upload, in full and whatever
// the node answers, bodies it must refuse: unsigned forwards to /internal/peer/stream declaring
// 62 MiB, then /v1/repair with an invalid key declaring 31 MiB (the largest body the default
// MAX_PAYLOAD_BYTES allows). Resident memory (VmRSS of the node, all threads) before, at its peak
// (sampled every 20 ms) and 2 s after each burst (docs/reliability.md "Hostile uploads").
// Options: --connections N (default 16).
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startRedis } from '../../support/redis-server.js';
import { JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';
import { printTable } from '../lib/table.js';

const { values } = parseArgs({ options: { connections: { type: 'string', default: '16' } } });
const connections = Number(values.connections);
const MiB = 1024 * 1024;

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `head` then `bodyBytes` of body, whatever comes back; resolves with the bytes the socket took. */
function upload(port: number, head: string, bodyBytes: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(MiB, 0x20);
    let left = bodyBytes;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(bodyBytes - left);
    };
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('data', () => {});
    const pump = (): void => {
      while (left > 0 && !done) {
        const part = left >= chunk.byteLength ? chunk : chunk.subarray(0, left);
        left -= part.byteLength;
        if (!socket.write(part)) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.end();
      setTimeout(finish, 500);
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

const redis = await startRedis();
const server = await startServerProcess(JSONMEND_MAIN, {
  WORKERS: '1', LOG_LEVEL: 'error', REDIS_URL: redis.url, CLUSTER_SECRET: 'bench-hostile-cluster-secret-0123', API_KEYS: 'bench-hostile-key:free',
});
const port = Number(new URL(server.url).port);
const rows: string[][] = [];
try {
  await fetch(`${server.url}/v1/repair`, { method: 'POST', headers: { authorization: 'Bearer bench-hostile-key' }, body: '{"content":"[1"}' });
  const peerHead = (bytes: number): string => `POST /internal/peer/stream HTTP/1.1\r\nHost: x\r\nContent-Length: ${bytes}\r\n`
    + 'x-jsonmend-peer-endpoint: push\r\nx-jsonmend-peer-contract: envelope\r\nx-jsonmend-peer-key: k\r\nx-jsonmend-peer-session: s\r\n'
    + `x-jsonmend-peer-time: ${Date.now()}\r\nx-jsonmend-peer-signature: ${'0'.repeat(64)}\r\n\r\n`;
  const repairHead = (bytes: number): string => `POST /v1/repair HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-key\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`;
  for (const [name, head, bytes] of [
    ['unsigned /internal/peer/stream, 62 MiB each', peerHead, 62 * MiB],
    ['/v1/repair with an invalid key, 31 MiB each', repairHead, 31 * MiB],
  ] as const) {
    await sleep(1_000);
    const before = rssOf(server.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 20);
    const sent = await Promise.all(Array.from({ length: connections }, () => upload(port, head(bytes), bytes)));
    await sleep(2_000);
    clearInterval(sampler);
    const after = rssOf(server.pid);
    const mb = (n: number): string => (n / 1e6).toFixed(0);
    rows.push([name, String(connections), mb(sent.reduce((a, b) => a + b, 0)), mb(before), mb(peak), mb(after)]);
  }
} finally {
  await server.stop();
  await redis.close();
}
printTable(['burst', 'connections', 'MB sent', 'RSS before MB', 'RSS peak MB', 'RSS after 2 s MB'], rows);

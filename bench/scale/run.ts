// `npm run bench:scale`: the same 1 KB repair load (bench/http's body, autocannon, 50 connections)
// against one node, one node with REDIS_URL set, PROCESSES=2 on the shared port, and two nodes
// behind HAProxy (deploy/haproxy.cfg); then streaming push latency on a session's owner against
// the same pushes forwarded by another node. Every node runs WORKERS=1, so the scenarios differ
// only in how many nodes serve. CPU is read from /proc for every node process (a PROCESSES primary
// and its nodes together) and, separately, for HAProxy. On a 2-core machine two nodes cannot go
// faster than one: the figure to carry to bigger machines is CPU per request (docs/scaling.md).
// Options: --seconds N (default 5), --connections N (default 50), --pushes N (default 2000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startHaproxy } from '../../support/haproxy.js';
import { freePort } from '../../support/free-port.js';
import { startRedis } from '../../support/redis-server.js';
import { KeepAliveClient } from '../stream/keep-alive-client.js';
import { PUSH_CHUNK, REPAIR_BODY } from '../http/payload.js';
import { runLoad, type LoadStats, type LoadTarget, type RequestSpec } from '../lib/load.js';
import { cpuSecondsOf, JSONMEND_MAIN, startServerProcess, treeCpuSecondsOf, type ServerProcess } from '../../support/server-process.js';
import { printTable } from '../lib/table.js';

const { values } = parseArgs({ options: {
  seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' }, pushes: { type: 'string', default: '2000' },
} });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const pushes = Number(values.pushes);
const KEY = 'bench-scale-key-unlimited';
const auth = { authorization: `Bearer ${KEY}` };
const SECRET = 'bench-scale-cluster-secret-0123456789';

// Teardowns of the test helpers (redis-server, haproxy), run last to first at the end or on Ctrl-C.
const teardowns: (() => unknown)[] = [];
const owner = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
const started: ServerProcess[] = [];
async function cleanUp(): Promise<void> {
  for (const p of started.splice(0)) await p.stop().catch(() => {});
  for (const fn of teardowns.splice(0).reverse()) await fn();
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
// A failure part-way (a refused push, a node that will not start) stops them too, then is reported.
process.once('uncaughtException', (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  void cleanUp().finally(() => process.exit(1));
});

const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-bench-scale-'));
teardowns.push(() => rmSync(dataDir, { recursive: true, force: true }));
const redis = await startRedis(owner);
// Rate-limited keys for the limiter rows: team keys (1,000 a minute each), enough of them that the
// load stays under every key's limit, so every request goes through the limiter and is served.
const LIMITED_KEYS = Array.from({ length: 1_000 }, (_, i) => `bench-scale-team-${String(i).padStart(4, '0')}`);
// STREAM_PUSH_*: the push-latency part pushes one session as fast as loopback allows, far past
// the default bucket of 200 pushes a second; a refused push is not what it measures.
const base = { WORKERS: '1', STREAM_PUSH_RATE: '1000000', STREAM_PUSH_BURST: '1000000', API_KEYS: [`${KEY}:unlimited`, ...LIMITED_KEYS.map((key) => `${key}:team`)].join(','), LOG_LEVEL: 'warn', DATA_DIR: dataDir };
const clustered = { ...base, REDIS_URL: redis.url, CLUSTER_SECRET: SECRET };

async function node(env: Record<string, string>): Promise<ServerProcess> {
  const p = await startServerProcess(JSONMEND_MAIN, env);
  started.push(p);
  return p;
}
async function stopAll(): Promise<void> {
  for (const p of started.splice(0)) await p.stop();
}

interface Row { name: string; result: LoadStats; proxyCpuUsPerRequest: number | null; refused: number | null }

/** Requests the node refused for a rate limit (a 200 in the envelope contract, so not in autocannon's errors). */
async function rateLimited(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/jsonmend_requests_total\{route="repair",outcome="RATE_LIMIT_EXCEEDED"\} (\d+)/.exec(text)?.[1] ?? 0);
}
const rows: Row[] = [];
/** One repair request per key (each connection sends them in turn), or the unlimited key alone. */
function repairRequests(keys: readonly string[]): RequestSpec[] {
  return (keys.length === 0 ? [KEY] : keys).map((key) => ({
    method: 'POST', path: '/v1/repair', headers: { authorization: `Bearer ${key}` }, body: REPAIR_BODY,
    inputBytes: Buffer.byteLength(REPAIR_BODY), classify: (status) => (status === 200 ? 'ok' : 'failed'),
  }));
}
async function measure(name: string, target: LoadTarget, proxyCpu: (() => number) | null = null, keys: readonly string[] = []): Promise<void> {
  const check = (await (await fetch(target.url + '/v1/repair', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: REPAIR_BODY })).json()) as { success: boolean };
  if (check.success !== true) throw new Error(`${name}: the sanity repair failed`);
  // A refused rate limit is a 200 in the envelope contract: counted from /metrics, not in the errors column.
  const spec = { url: target.url, requests: repairRequests(keys), connections, pipelining: 1, seconds: 2, warmupSeconds: 0 };
  await runLoad(target, spec); // warm-up: JIT, connections, worker start
  const proxyBefore = proxyCpu?.() ?? 0;
  const result = await runLoad(target, { ...spec, seconds });
  const proxyPerRequest = proxyCpu === null ? null : ((proxyCpu() - proxyBefore) / result.responses) * 1e6;
  rows.push({ name, result, proxyCpuUsPerRequest: proxyPerRequest, refused: keys.length === 0 ? null : await rateLimited(target.url) });
  process.stdout.write(`${name}: ${Math.round(result.requestsPerSecond)} req/s\n`);
}

/** Several processes measured as one target: CPU is their sum. */
function together(url: string, processes: ServerProcess[]): LoadTarget {
  return { url, cpuSeconds: () => processes.reduce((sum, p) => sum + p.cpuSeconds(), 0), exited: () => processes.some((p) => p.exited()) };
}

process.stdout.write(`body ${Buffer.byteLength(REPAIR_BODY)} bytes, ${connections} connections, ${seconds} s per run (+2 s warm-up), WORKERS=1 per node\n`);

await measure('one node', await node(base));
await stopAll();
await measure('one node, REDIS_URL set', await node(clustered));
await stopAll();
await measure('one node, rate-limited keys', await node(base), null, LIMITED_KEYS);
await stopAll();
await measure('one node, rate-limited keys, limits in Redis', await node(clustered), null, LIMITED_KEYS);
await stopAll();
const primary = await node({ ...clustered, PROCESSES: '2', NODE_ID: 'bench' });
await measure('PROCESSES=2, shared port', { url: primary.url, exited: primary.exited, cpuSeconds: () => treeCpuSecondsOf(primary.pid) });
await stopAll();

const ports = [await freePort(), await freePort()];
const a = await node({ ...clustered, NODE_ID: 'a', PORT: String(ports[0]) });
const b = await node({ ...clustered, NODE_ID: 'b', PORT: String(ports[1]) });
const haproxy = await startHaproxy(owner, `127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`);
await haproxy.waitUp();
await measure('two nodes behind HAProxy', together(haproxy.url, [a, b]), () => cpuSecondsOf(haproxy.child.pid!));

printTable(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'node cores', 'node CPU µs/req', 'HAProxy CPU µs/req', 'errors', 'rate-limited'], rows.map(({ name, result: r, proxyCpuUsPerRequest, refused }) => [
  name, Math.round(r.requestsPerSecond), r.latency.p50.toFixed(2), r.latency.p99.toFixed(2), r.serverCores.toFixed(2),
  ((r.serverCores / r.requestsPerSecond) * 1e6).toFixed(1), proxyCpuUsPerRequest === null ? '-' : proxyCpuUsPerRequest.toFixed(1), r.errors + r.non2xx, refused ?? '-',
]));

// Push latency: one session owned by node a, pushed in alternating blocks straight to a and
// through b (which forwards to a), on one keep-alive connection each, one push at a time.
const clientA = await KeepAliveClient.open(a.url, `Bearer ${KEY}`);
const clientB = await KeepAliveClient.open(b.url, `Bearer ${KEY}`);
const body = (id: string): string => JSON.stringify({ session_id: id, chunk: PUSH_CHUNK });
const latencies = { local: [] as number[], forwarded: [] as number[] };
const cpu = { local: 0, forwarded: 0 };
const BLOCK = 100;
// Sessions are renewed before their buffer nears the 5 MiB limit.
let sessionId = '';
let pushedBytes = Infinity;
for (let done = 0; done < 2 * pushes; done += BLOCK) {
  if (pushedBytes > 4_000_000) {
    const answer = JSON.parse(await clientA.post('/v1/repair/stream/start', JSON.stringify({ echo_buffer: false }))) as { session_id: string };
    sessionId = answer.session_id;
    pushedBytes = 0;
  }
  const which = (done / BLOCK) % 2 === 0 ? 'local' : 'forwarded';
  const client = which === 'local' ? clientA : clientB;
  const cpuBefore = a.cpuSeconds() + b.cpuSeconds();
  for (let i = 0; i < BLOCK; i++) {
    const t0 = performance.now();
    const answer = await client.post('/v1/repair/stream/push', body(sessionId));
    latencies[which].push(performance.now() - t0);
    if (!answer.startsWith('{"state"')) throw new Error(`push failed: ${answer.slice(0, 200)}`);
  }
  cpu[which] += a.cpuSeconds() + b.cpuSeconds() - cpuBefore;
  pushedBytes += BLOCK * Buffer.byteLength(PUSH_CHUNK);
}
clientA.close();
clientB.close();
const stats = (list: number[]): { p50: number; p99: number; mean: number } => {
  const sorted = Float64Array.from(list).sort();
  return { p50: sorted[Math.floor(sorted.length / 2)]!, p99: sorted[Math.floor(sorted.length * 0.99)]!, mean: list.reduce((s, v) => s + v, 0) / list.length };
};
process.stdout.write(`\npush latency, ${Buffer.byteLength(PUSH_CHUNK)}-byte chunks, ${pushes} pushes each, alternating blocks of ${BLOCK}\n`);
printTable(['push', 'p50 ms', 'p99 ms', 'mean ms', 'CPU µs/push (both nodes)'], (['local', 'forwarded'] as const).map((which) => {
  const s = stats(latencies[which]);
  return [which === 'local' ? 'to the owner' : 'via the other node (forwarded)', s.p50.toFixed(3), s.p99.toFixed(3), s.mean.toFixed(3), ((cpu[which] / pushes) * 1e6).toFixed(0)];
}));
await cleanUp();

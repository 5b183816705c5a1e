// `npm run bench:http`: a ~1 KB malformed LLM reply POSTed to /v1/repair at 50 connections, against
// our server (WORKERS=1 and 2) and, in the same run, a bare uWS echo server given the same body and
// a fastify + jsonrepair server (fastify-server.ts) repairing it.
// Targets: p99 under 5 ms, at least 60% of the echo server's req/s and 3× fastify + jsonrepair's.
// Options: --seconds N (default 10), --connections N (default 50), --cpu-prof DIR (our WORKERS=1
// server writes a V8 CPU profile of its run into DIR, for `node --cpu-prof`'s usual viewers).
import { parseArgs } from 'node:util';
import { runLoad, type LoadStats } from '../lib/load.js';
import { ECHO_MAIN, FASTIFY_MAIN, JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';
import { printTable } from '../lib/table.js';
import { REPAIR_BODY } from './payload.js';

const TINY_BODY = JSON.stringify({ raw_output: '[1]' });

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, 'cpu-prof': { type: 'string' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const KEY = 'bench-http-key-unlimited';

async function measure(main: string, env: Record<string, string>, path: string, headers: Record<string, string>, body = REPAIR_BODY, nodeArgs: string[] = []): Promise<LoadStats> {
  const target = await startServerProcess(main, env, undefined, nodeArgs);
  try {
    if (main === JSONMEND_MAIN || main === FASTIFY_MAIN) {
      const check = await fetch(target.url + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      const answer = (await check.json()) as { success: boolean; metadata?: { repairs_applied: { type: string }[]; errors: { code: string }[] } };
      const what = answer.metadata === undefined ? 'fastify + jsonrepair'
        : answer.success ? answer.metadata.repairs_applied.map((r) => r.type).join(', ') : answer.metadata.errors.map((e) => e.code).join(', ');
      process.stdout.write(`sanity: success=${answer.success} (${what})\n`);
    }
    const request = { method: 'POST' as const, path, headers, body, inputBytes: Buffer.byteLength(body), classify: (status: number) => (status === 200 ? 'ok' as const : 'failed' as const) };
    // 2 s of warm-up: JIT, connections, worker start.
    return await runLoad(target, { url: target.url, requests: [request], connections, pipelining: 1, seconds, warmupSeconds: 2 });
  } finally {
    await target.stop();
  }
}

process.stdout.write(`body ${Buffer.byteLength(REPAIR_BODY)} bytes, ${connections} connections, ${seconds} s per run (+2 s warm-up)\n`);
const echo = await measure(ECHO_MAIN, {}, '/echo', {});
const fastify = await measure(FASTIFY_MAIN, {}, '/v1/repair', {});
const rows: (string | number)[][] = [];
const row = (name: string, r: LoadStats): void => {
  rows.push([
    name, Math.round(r.requestsPerSecond), r.latency.p50.toFixed(2), r.latency.p99.toFixed(2),
    `${Math.round((r.requestsPerSecond / echo.requestsPerSecond) * 100)}%`,
    `${(r.requestsPerSecond / fastify.requestsPerSecond).toFixed(2)}×`, r.serverCores.toFixed(2),
    ((r.serverCores / r.requestsPerSecond) * 1e6).toFixed(1), r.errors + r.non2xx,
  ]);
};
row('uWS echo', echo);
row('fastify + jsonrepair', fastify);
const auth = { authorization: `Bearer ${KEY}` };
for (const workers of ['1', '2']) {
  const profile = workers === '1' && values['cpu-prof'] !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
  const ours = await measure(JSONMEND_MAIN, { WORKERS: workers, API_KEYS: `${KEY}:unlimited` }, '/v1/repair', auth, REPAIR_BODY, profile);
  row(`jsonmend WORKERS=${workers}`, ours);
}
// A reference, not a target: the same service with a 20-byte body (`[1]` to repair), i.e. every
// per-request cost (uWS, auth, routing, validation, logs, metrics, usage records) but almost no
// repair, parse or serialization work. It shows what the 1 KB repair itself adds.
const tiny = await measure(JSONMEND_MAIN, { WORKERS: '1', API_KEYS: `${KEY}:unlimited` }, '/v1/repair', auth, TINY_BODY);
row('jsonmend WORKERS=1, 20-byte body', tiny);
printTable(['server', 'req/s', 'p50 ms', 'p99 ms', 'vs echo', 'vs fastify', 'server cores', 'server CPU µs/req', 'errors'], rows);

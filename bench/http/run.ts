// `npm run bench:http`: a ~1 KB malformed LLM reply POSTed to /v1/repair at 50 connections, against
// our server (WORKERS=1 and 2) and, in the same run, a bare uWS echo server given the same body and
// a fastify + jsonrepair server (fastify-server.ts) repairing it.
// Targets: p99 under 5 ms, at least 60% of the echo server's req/s and 3× fastify + jsonrepair's.
// The servers take turns, round after round (--rounds, default 3); each figure is the median over
// the rounds, and each ratio the median of the ratios within a round, so a slow spell of the
// machine lands on every server alike. The load generator and the server run on separate cores
// (bench/lib/cpu-pinning.ts; --no-pin leaves it to the scheduler).
// Options: --seconds N (per server per round, default 5), --connections N (default 50), --rounds N,
// --no-pin, --cpu-prof DIR (our WORKERS=1 server writes a V8 CPU profile of its first round into
// DIR, for `node --cpu-prof`'s usual viewers), --against MAIN (another build's dist/server/main.js,
// measured in the same rounds as one more row: "no loss" is then a ratio within one run).
import { parseArgs } from 'node:util';
import { pinLoadGenerator } from '../lib/cpu-pinning.js';
import { runLoad, type LoadStats } from '../lib/load.js';
import { ECHO_MAIN, FASTIFY_MAIN, JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';
import { printTable } from '../lib/table.js';
import { median } from '../lib/timing.js';
import { REPAIR_BODY } from './payload.js';

const TINY_BODY = JSON.stringify({ raw_output: '[1]' });

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    'no-pin': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    against: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const KEY = 'bench-http-key-unlimited';
const pinning = pinLoadGenerator(values['no-pin'] !== true);

interface Server {
  name: string;
  main: string;
  env: Record<string, string>;
  path: string;
  headers: Record<string, string>;
  body: string;
  profiled: boolean;
}

async function measure(server: Server, nodeArgs: string[], sanity: boolean): Promise<LoadStats> {
  const { main, path, headers, body } = server;
  const target = await startServerProcess(main, server.env, undefined, nodeArgs);
  try {
    pinning.server(target.pid);
    if (sanity && main !== ECHO_MAIN) {
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

const auth = { authorization: `Bearer ${KEY}` };
const ours = (workers: string): Record<string, string> => ({ WORKERS: workers, API_KEYS: `${KEY}:unlimited` });
const servers: Server[] = [
  { name: 'uWS echo', main: ECHO_MAIN, env: {}, path: '/echo', headers: {}, body: REPAIR_BODY, profiled: false },
  { name: 'fastify + jsonrepair', main: FASTIFY_MAIN, env: {}, path: '/v1/repair', headers: {}, body: REPAIR_BODY, profiled: false },
  { name: 'jsonmend WORKERS=1', main: JSONMEND_MAIN, env: ours('1'), path: '/v1/repair', headers: auth, body: REPAIR_BODY, profiled: true },
  { name: 'jsonmend WORKERS=2', main: JSONMEND_MAIN, env: ours('2'), path: '/v1/repair', headers: auth, body: REPAIR_BODY, profiled: false },
  // A reference, not a target: the same service with a 20-byte body (`[1]` to repair), i.e. every
  // per-request cost (uWS, auth, routing, validation, logs, metrics, usage records) but almost no
  // repair, parse or serialization work. It shows what the 1 KB repair itself adds.
  { name: 'jsonmend WORKERS=1, 20-byte body', main: JSONMEND_MAIN, env: ours('1'), path: '/v1/repair', headers: auth, body: TINY_BODY, profiled: false },
];
if (values.against !== undefined) {
  servers.push({ name: 'other build (--against), WORKERS=1', main: values.against, env: ours('1'), path: '/v1/repair', headers: auth, body: REPAIR_BODY, profiled: false });
}

process.stdout.write(`body ${Buffer.byteLength(REPAIR_BODY)} bytes, ${connections} connections, ${seconds} s per server and round ` +
  `(+2 s warm-up), ${rounds} rounds; ${pinning.description}\n`);
const results: LoadStats[][] = servers.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [i, server] of servers.entries()) {
    const profile = round === 0 && server.profiled && values['cpu-prof'] !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
    results[i]!.push(await measure(server, profile, round === 0));
  }
  process.stdout.write(`round ${round + 1}: ${servers.map((s, i) => `${s.name} ${Math.round(results[i]![round]!.requestsPerSecond)}`).join(', ')} req/s\n`);
}

const ECHO = 0;
const FASTIFY = 1;
/** The median over the rounds of what `of` reads from a run (of `index`, given the round). */
const across = (index: number, of: (r: LoadStats, round: number) => number): number => median(results[index]!.map(of));
const rows = servers.map((server, i) => {
  const rps = across(i, (r) => r.requestsPerSecond);
  return [
    server.name, Math.round(rps), across(i, (r) => r.latency.p50).toFixed(2), across(i, (r) => r.latency.p99).toFixed(2),
    `${Math.round(across(i, (r, round) => r.requestsPerSecond / results[ECHO]![round]!.requestsPerSecond) * 100)}%`,
    `${across(i, (r, round) => r.requestsPerSecond / results[FASTIFY]![round]!.requestsPerSecond).toFixed(2)}×`,
    across(i, (r) => r.serverCores).toFixed(2),
    across(i, (r) => (r.serverCores / r.requestsPerSecond) * 1e6).toFixed(1),
    results[i]!.reduce((sum, r) => sum + r.errors + r.non2xx, 0),
  ];
});
printTable(['server', 'req/s', 'p50 ms', 'p99 ms', 'vs echo', 'vs fastify', 'server cores', 'server CPU µs/req', 'errors'], rows);

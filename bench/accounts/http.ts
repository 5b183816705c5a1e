// `npm run bench:accounts` (second part): req/s of keyed small repairs over HTTP, the real server
// with the accounts layer in place (SQLite in a temp DATA_DIR: cached key store, admission, usage
// counting, metadata log, background flushes) against the same server with API_KEYS only
// (api-keys-only-server.ts). Issue 5's target: within 10%. The key is `unlimited`, so no limit
// refuses anything; rounds alternate the two servers to spread the shared machine's noise.
// Besides req/s it reports the server's CPU per request, split into the uWS thread and all other
// threads (the metadata writer's SQLite inserts show there), read from /proc per thread.
// Options: --seconds N (default 5), --rounds N (default 3), --connections N (default 50).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, type LoadSpec } from '../lib/load.js';
import { JSONMEND_MAIN, startServerProcess } from '../lib/server-process.js';
import { printTable } from '../lib/table.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '50' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const BASELINE_MAIN = fileURLToPath(new URL('./api-keys-only-server.js', import.meta.url));
const KEY = 'sk_live_benchAccountsHttp0000000000000000';
// A small, typical broken reply: unquoted key, single quotes, trailing comma, cut off.
const BODY = JSON.stringify({ raw_output: "{id: 7, name: 'Ada', tags: ['x', 'y',], ok: true" });
const env = { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', LOG_LEVEL: 'warn' };
const CLOCK_TICKS = 100; // USER_HZ on Linux

interface Run { rps: number; p50: number; p99: number; mainUs: number; otherUs: number; errors: number }

/** CPU seconds of each thread of `pid` (utime + stime). */
function threadCpu(pid: number): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpu.set(tid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch { /* the thread ended meanwhile */ }
  }
  return cpu;
}

async function measure(main: string): Promise<Run> {
  const target = await startServerProcess(main, env);
  try {
    const headers = { authorization: `Bearer ${KEY}` };
    const check = await fetch(`${target.url}/v1/repair`, { method: 'POST', headers, body: BODY });
    if (((await check.json()) as { success: boolean }).success !== true) throw new Error(`sanity check failed on ${main}`);
    const request = { method: 'POST' as const, path: '/v1/repair', headers, body: BODY, inputBytes: Buffer.byteLength(BODY), classify: (status: number) => (status === 200 ? 'ok' as const : 'failed' as const) };
    const spec: LoadSpec = { url: target.url, requests: [request], connections, pipelining: 1, seconds: 2, warmupSeconds: 0 };
    await runLoad(target, spec); // warm-up: JIT, connections
    const before = threadCpu(target.pid);
    const result = await runLoad(target, { ...spec, seconds });
    const after = threadCpu(target.pid);
    let uwsThread = 0;
    let other = 0;
    for (const [tid, cpu] of after) {
      const used = cpu - (before.get(tid) ?? 0);
      if (tid === String(target.pid)) uwsThread += used;
      else other += used;
    }
    const total = result.responses;
    return {
      rps: result.requestsPerSecond, p50: result.latency.p50, p99: result.latency.p99,
      mainUs: (uwsThread * 1e6) / total, otherUs: (other * 1e6) / total,
      errors: result.errors + result.non2xx,
    };
  } finally {
    await target.stop();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`body ${Buffer.byteLength(BODY)} bytes, ${connections} connections, ${seconds} s per run (+2 s warm-up), ${rounds} rounds\n`);
const runs: Record<'baseline' | 'accounts', Run[]> = { baseline: [], accounts: [] };
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so a drift in machine load does not favour one side.
  const order = round % 2 === 0 ? (['baseline', 'accounts'] as const) : (['accounts', 'baseline'] as const);
  for (const which of order) runs[which].push(await measure(which === 'baseline' ? BASELINE_MAIN : JSONMEND_MAIN));
}
const med = (which: 'baseline' | 'accounts', pick: (r: Run) => number): number => median(runs[which].map(pick));
printTable(
  ['server', 'req/s per round', 'median req/s', 'p50 ms', 'p99 ms', 'uWS thread µs/req', 'other threads µs/req', 'errors'],
  (['baseline', 'accounts'] as const).map((which) => [
    which === 'baseline' ? 'API_KEYS only (in memory)' : 'accounts layer (SQLite store)',
    runs[which].map((r) => Math.round(r.rps)).join(' / '),
    Math.round(med(which, (r) => r.rps)),
    med(which, (r) => r.p50).toFixed(1),
    med(which, (r) => r.p99).toFixed(1),
    med(which, (r) => r.mainUs).toFixed(1),
    med(which, (r) => r.otherUs).toFixed(1),
    runs[which].reduce((n, r) => n + r.errors, 0),
  ]),
);
const pct = (a: number, b: number): string => `${((a / b) * 100).toFixed(1)}%`;
process.stdout.write(`req/s, accounts / baseline: ${pct(med('accounts', (r) => r.rps), med('baseline', (r) => r.rps))} (target: at least 90%)\n`);
process.stdout.write(`uWS-thread CPU per request, accounts / baseline: ${pct(med('accounts', (r) => r.mainUs), med('baseline', (r) => r.mainUs))}\n`);

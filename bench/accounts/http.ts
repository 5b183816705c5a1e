// `npm run bench:accounts` (second part): req/s of keyed small repairs over HTTP, the real server
// with the accounts layer in place (SQLite in a temp DATA_DIR: cached key store, admission, usage
// counting, metadata log, background flushes) against the same server with API_KEYS only
// (api-keys-only-server.ts). Target: within 10%. The key is `unlimited`, so no limit
// refuses anything; rounds alternate the two servers to spread the shared machine's noise.
// Besides req/s it reports the server's CPU per request, split into the uWS thread and all other
// threads (the metadata writer's SQLite inserts show there), read from /proc per thread.
// Options: --seconds N (default 5), --rounds N (default 3), --connections N (default 50).
// --redis compares instead the accounts layer alone with the same server given REDIS_URL (limits
// shared through a redis-server started for the run: leases taken by Lua, docs/scaling.md), over
// --keys N (default 1000) scale-tier keys in turn, so the shared limiter's refills are on the path.
// --rate N offers N requests a second instead of as many as the server takes: CPU per request is
// then compared at one load (at saturation it also moves with how many requests each loop turn batches).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, type LoadSpec, type RequestSpec } from '../lib/load.js';
import { startRedis, type TestRedis } from '../../support/redis-server.js';
import { JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';
import { printTable } from '../lib/table.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '50' },
    redis: { type: 'boolean', default: false }, keys: { type: 'string' }, rate: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const rate = values.rate === undefined ? undefined : Number(values.rate);
const BASELINE_MAIN = fileURLToPath(new URL('./api-keys-only-server.js', import.meta.url));
const KEY = 'sk_live_benchAccountsHttp0000000000000000';
// A small, typical broken reply: unquoted key, single quotes, trailing comma, cut off.
const BODY = JSON.stringify({ raw_output: "{id: 7, name: 'Ada', tags: ['x', 'y',], ok: true" });
const redisMode = values.redis === true;
const keyCount = Number(values.keys ?? (redisMode ? 1_000 : 1));
// One unlimited key (no limiter on the path), or many scale-tier keys (1,000 a minute each: none is
// refused at these rates, every one goes through the limiter).
const KEYS = keyCount === 1 ? [KEY] : Array.from({ length: keyCount }, (_, i) => `sk_live_bench${String(i).padStart(27, '0')}`);
const env = { API_KEYS: KEYS.map((k) => `${k}:${keyCount === 1 ? 'unlimited' : 'scale'}`).join(','), WORKERS: '1', LOG_LEVEL: 'warn' };
// Each connection sends these in turn, one per key.
const REQUESTS: RequestSpec[] = KEYS.map((k) => ({
  method: 'POST', path: '/v1/repair', headers: { authorization: `Bearer ${k}` }, body: BODY, inputBytes: Buffer.byteLength(BODY),
  classify: (status) => (status === 200 ? 'ok' : 'failed'),
}));
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

async function measure(main: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  const target = await startServerProcess(main, { ...env, ...extraEnv });
  try {
    const check = await fetch(`${target.url}/v1/repair`, { method: 'POST', headers: REQUESTS[0]!.headers, body: BODY });
    if (((await check.json()) as { success: boolean }).success !== true) throw new Error(`sanity check failed on ${main}`);
    const spec: LoadSpec = { url: target.url, requests: REQUESTS, connections, pipelining: 1, seconds: 2, warmupSeconds: 0, ...(rate === undefined ? {} : { overallRate: rate }) };
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
type Side = 'baseline' | 'accounts' | 'redis';
const sides: readonly [Side, Side] = redisMode ? ['accounts', 'redis'] : ['baseline', 'accounts'];
const LABELS: Record<Side, string> = {
  baseline: 'API_KEYS only (in memory)',
  accounts: redisMode ? 'accounts layer, in-process limits' : 'accounts layer (SQLite store)',
  redis: 'accounts layer + REDIS_URL (shared limits)',
};
process.stdout.write(`body ${Buffer.byteLength(BODY)} bytes, ${KEYS.length} key(s), ${connections} connections, ${seconds} s per run (+2 s warm-up), ${rounds} rounds${rate === undefined ? '' : `, offered ${rate} req/s`}\n`);
const redis: TestRedis | undefined = redisMode ? await startRedis() : undefined;
const runs: Record<Side, Run[]> = { baseline: [], accounts: [], redis: [] };
try {
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a drift in machine load does not favour one side.
    const order = round % 2 === 0 ? sides : ([sides[1], sides[0]] as const);
    for (const which of order) {
      // Each redis run starts from an empty Redis: no leases left over from the previous round.
      if (which === 'redis') flushRedis(redis!);
      runs[which].push(await measure(which === 'baseline' ? BASELINE_MAIN : JSONMEND_MAIN,
        which === 'redis' ? { REDIS_URL: redis!.url, CLUSTER_SECRET: 'bench-cluster-secret-0123456789' } : {}));
    }
  }
} finally {
  await redis?.close();
}
const med = (which: Side, pick: (r: Run) => number): number => median(runs[which].map(pick));
printTable(
  ['server', 'req/s per round', 'median req/s', 'p50 ms', 'p99 ms', 'uWS thread µs/req', 'other threads µs/req', 'errors'],
  sides.map((which) => [
    LABELS[which],
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
const [base, side] = sides;
const total = (which: Side): number => med(which, (r) => r.mainUs + r.otherUs);
process.stdout.write(`req/s, ${side} / ${base}: ${pct(med(side, (r) => r.rps), med(base, (r) => r.rps))}${redisMode ? '' : ' (target: at least 90%)'}\n`);
process.stdout.write(`uWS-thread CPU per request, ${side} / ${base}: ${pct(med(side, (r) => r.mainUs), med(base, (r) => r.mainUs))}\n`);
process.stdout.write(`all threads' CPU per request, ${side} / ${base}: ${pct(total(side), total(base))}${redisMode ? ' (target: within 115%)' : ''}\n`);

/** FLUSHALL through redis-cli (the bench has no client of its own). */
function flushRedis(r: TestRedis): void {
  execFileSync('redis-cli', ['-s', r.url.slice('unix://'.length), 'FLUSHALL'], { stdio: 'ignore' });
}

// `node dist/bench/scale/forwarded-pushes.js [--against OTHER/dist/server/main.js] [--rounds N]
// [--pushes N]`: the CPU a forwarded push costs, on its own. Two nodes on one Redis (WORKERS=1,
// shared DATA_DIR so one key is one account on both); a session started on node a; pushes of
// PUSH_CHUNK (bench/http/payload.ts, 86 bytes) sent one at a time to node b, which forwards each to
// a. After 2,000 pushes of warm-up, each round times N pushes (default 3,000) on a fresh session and
// reads both nodes' CPU from /proc. bench:scale's push rows come right after its load rows on the
// same nodes, and moved 10–30% from run to run with what the nodes were still doing; here nothing
// else runs. With --against, the other build is measured the same way after this one, round for
// round alternating whole runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../support/free-port.js';
import { startRedis } from '../../support/redis-server.js';
import { JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';
import { PUSH_CHUNK } from '../http/payload.js';
import { printTable } from '../lib/table.js';
import { median } from '../lib/timing.js';
import { KeepAliveClient } from '../stream/keep-alive-client.js';

const { values } = parseArgs({ options: {
  against: { type: 'string' }, rounds: { type: 'string', default: '2' }, pushes: { type: 'string', default: '3000' },
} });
const KEY = 'bench-forward-key-unlimited';
const SECRET = 'bench-forward-cluster-secret-0123456789';
// A node takes the directory at its word only once every node has written its entries again.
const SETTLE_MS = 6_000;

interface Measured { a: number; b: number; wallMs: number }

async function measureBuild(main: string, pushes: number): Promise<Measured[]> {
  const redis = await startRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-forward-'));
  const env = { WORKERS: '1', API_KEYS: `${KEY}:unlimited`, LOG_LEVEL: 'warn', DATA_DIR: dataDir, REDIS_URL: redis.url, CLUSTER_SECRET: SECRET };
  const a = await startServerProcess(main, { ...env, NODE_ID: 'a', PORT: String(await freePort()) });
  const b = await startServerProcess(main, { ...env, NODE_ID: 'b', PORT: String(await freePort()) });
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const clientA = await KeepAliveClient.open(a.url, `Bearer ${KEY}`);
    const clientB = await KeepAliveClient.open(b.url, `Bearer ${KEY}`);
    const round = async (n: number): Promise<Measured> => {
      const start = JSON.parse(await clientA.post('/v1/repair/stream/start', JSON.stringify({ echo_buffer: false }))) as { session_id: string };
      const body = JSON.stringify({ session_id: start.session_id, chunk: PUSH_CHUNK });
      const a0 = a.cpuSeconds();
      const b0 = b.cpuSeconds();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const answer = await clientB.post('/v1/repair/stream/push', body);
        if (!answer.startsWith('{"state"')) throw new Error(`push failed: ${answer.slice(0, 200)}`);
      }
      return { a: ((a.cpuSeconds() - a0) / n) * 1e6, b: ((b.cpuSeconds() - b0) / n) * 1e6, wallMs: (performance.now() - t0) / n };
    };
    await round(2_000);
    const rounds = [await round(pushes), await round(pushes), await round(pushes)];
    clientA.close();
    clientB.close();
    return rounds;
  } finally {
    await a.stop();
    await b.stop();
    await redis.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const builds = [{ name: 'this build', main: JSONMEND_MAIN }, ...(values.against === undefined ? [] : [{ name: 'other build (--against)', main: values.against }])];
const results = builds.map(() => [] as Measured[]);
for (let r = 0; r < Number(values.rounds); r++) {
  for (const [i, build] of builds.entries()) results[i]!.push(...await measureBuild(build.main, Number(values.pushes)));
}
process.stdout.write(`${values.pushes} pushes of ${Buffer.byteLength(PUSH_CHUNK)} B through node b to node a per round; medians of ${results[0]!.length} rounds\n`);
printTable(['build', 'node a CPU µs/push', 'node b CPU µs/push', 'both', 'wall µs/push'], builds.map((build, i) => {
  const rows = results[i]!;
  return [build.name, median(rows.map((m) => m.a)).toFixed(0), median(rows.map((m) => m.b)).toFixed(0), median(rows.map((m) => m.a + m.b)).toFixed(0), (median(rows.map((m) => m.wallMs)) * 1000).toFixed(0)];
}));

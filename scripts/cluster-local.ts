// `npm run cluster:local [-- --port N]`: a first cluster on this machine, with the same helpers the
// cluster tests use — a Redis and a PostgreSQL in temporary folders (unix sockets, loopback), two
// nodes sharing them (REDIS_URL, DATABASE_URL, CLUSTER_SECRET) and HAProxy in front
// (deploy/haproxy.cfg). It prints the address, an API key and the processes, and stops everything,
// by pid, on Ctrl-C (SIGINT) or SIGTERM. --port: HAProxy's port on 127.0.0.1 (default 8080, 0: any free one).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { JSONMEND_MAIN, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startHaproxy } from '../support/haproxy.js';
import { freePort } from '../support/free-port.js';
import { startPostgres } from '../support/postgres-server.js';
import { startRedis } from '../support/redis-server.js';

const CLI = fileURLToPath(new URL('../cli/jsonmend.js', import.meta.url));
const { values } = parseArgs({ options: { port: { type: 'string', default: '8080' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`cluster:local: --port must be a port number; got ${values.port}`);

// The helpers' teardowns, run last to first; the nodes are stopped before them.
const teardowns: (() => unknown)[] = [];
const owner = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
const nodes: ServerProcess[] = [];
let stopping: Promise<void> | null = null;
function stop(): Promise<void> {
  stopping ??= (async () => {
    for (const node of nodes.splice(0)) await node.stop().catch(() => {});
    for (const fn of teardowns.splice(0).reverse()) await Promise.resolve().then(fn).catch(() => {});
  })();
  return stopping;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stdout.write(`\n${signal}: stopping the nodes, HAProxy, PostgreSQL and Redis...\n`);
    void stop().then(() => {
      process.stdout.write('stopped\n');
      process.exit(0);
    });
  });
}

try {
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-cluster-local-'));
  teardowns.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const [redis, pg] = await Promise.all([startRedis(owner), startPostgres(owner)]);
  const shared = {
    REDIS_URL: redis.url, DATABASE_URL: pg.url, CLUSTER_SECRET: randomBytes(24).toString('base64url'),
    // Two nodes share this machine's cores: one repair thread each (docs/scaling.md).
    WORKERS: '1', DATA_DIR: dataDir,
  };
  const ports = [await freePort(), await freePort()];
  nodes.push(...await Promise.all(ports.map((nodePort, i) => startServerProcess(JSONMEND_MAIN, { ...shared, NODE_ID: `node-${i + 1}`, PORT: String(nodePort) }))));
  const haproxy = await startHaproxy(owner, `127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`, port);
  await haproxy.waitUp();
  // A key made the way an operator makes one: the CLI, writing to the cluster's PostgreSQL.
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'key', 'create', '--tier', 'pro', '--name', 'cluster-local'], { env: { ...process.env, DATABASE_URL: pg.url } });
  const key = stdout.trim().split('\n').at(-1)!;
  process.stdout.write([
    `jsonmend cluster ready at ${haproxy.url}`,
    `  API key (tier pro): ${key}`,
    `  try it: curl -s ${haproxy.url}/v1/repair -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"raw_output": "{a: 1,}"}'`,
    `  playground ${haproxy.url}/   console ${haproxy.url}/console   health ${haproxy.url}/health`,
    `  more keys: DATABASE_URL='${pg.url}' npm run key -- create --tier pro --name NAME`,
    `  HAProxy → node-1 ${nodes[0]!.url}, node-2 ${nodes[1]!.url}; Redis ${redis.url}; PostgreSQL ${pg.tcpUrl}`,
    `  processes: redis ${redis.pid()}, postgres ${pg.pid()}, node-1 ${nodes[0]!.pid}, node-2 ${nodes[1]!.pid}, haproxy ${haproxy.child.pid}`,
    'Ctrl-C stops everything.',
    '',
  ].join('\n'));
} catch (error) {
  process.stderr.write(`cluster:local could not start: ${(error as Error).message}\n`);
  await stop();
  process.exit(1);
}

// After Redis comes back empty, the nodes' clients reconnect on their own schedules (up to a second
// apart, stores/redis-connection.ts), and a starved node may take longer still: a node must not take
// the directory at its word while a node it knew has not written itself back. node-a reaches Redis
// through a proxy that keeps refusing it for a while after the restart; node-b reconnects at once.
// Every push through node-b to node-a's compact session lands meanwhile (on the build before the
// grace, node-b trusted the directory 1.5 s after its own rejoin and answered SESSION_NOT_FOUND).
import { createConnection, createServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { startCluster } from './cluster-helpers.js';

const KEY = 'redis-late-rejoin-key';
const cluster = await startCluster(t, { nodeIds: ['node-b'], env: { API_KEYS: `${KEY}:unlimited` } });
const redis = cluster.redis!;
const [b] = cluster.nodes as [StartedServer];

// A unix-socket proxy to Redis for node-a: while `refuseUntil` is ahead, new connections are closed at once.
const dir = mkdtempSync(join(tmpdir(), 'jsonmend-redis-proxy-'));
const proxySocket = join(dir, 'proxy.sock');
let refuseUntil = 0;
const open = new Set<Socket>();
const proxy = createServer((client) => {
  if (Date.now() < refuseUntil) {
    client.destroy();
    return;
  }
  const upstream = createConnection(redis.socket);
  open.add(client);
  const end = (): void => {
    open.delete(client);
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
  client.pipe(upstream).pipe(client);
});
await new Promise<void>((resolve) => proxy.listen(proxySocket, resolve));
t.teardown(() => {
  for (const s of open) s.destroy();
  proxy.close();
  rmSync(dir, { recursive: true, force: true });
});
const a = await cluster.add('node-a', { REDIS_URL: `unix://${proxySocket}` });

const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorOf = (body: any): string | undefined => body?.errors?.[0]?.code;

t.test('Redis back empty, node-a back a second or more after node-b: pushes through node-b to node-a\'s compact session all land', async (t) => {
  const uuid = '00000000-0000-4000-8000-00000000a1a1';
  t.equal((await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200);
  await sleep(600); // both nodes' views settled
  const items: number[] = [];
  const refusals: string[] = [];
  let stop = false;
  const pusher = (async () => {
    for (let i = 0; !stop; i++) {
      const reply = await postJson(at(b, 'push'), { sessionId: uuid, content: `${i === 0 ? '[' : ','}${i}` }, bearer(KEY));
      const code = errorOf(reply.body);
      if (code !== undefined) {
        refusals.push(`push ${i}: ${code}`);
        return;
      }
      items.push(i);
      await sleep(50);
    }
  })();
  await sleep(200);
  refuseUntil = Date.now() + 60_000; // node-a cannot reconnect...
  for (const s of open) s.destroy();
  await redis.stop();
  await redis.start();
  // ...until 2 s after Redis is back: node-b's client is back within a second, node-a's a second
  // or more later (past the 1.5 s after which node-b used to trust the directory)
  refuseUntil = Date.now() + 2_000;
  await sleep(4_500);
  stop = true;
  await pusher;
  t.same(refusals, [], `${items.length} pushes through node-b, none refused`);
  const finalized = await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY));
  t.same(JSON.parse(finalized.body.repaired ?? 'null'), items, 'finalize: the whole document');
});

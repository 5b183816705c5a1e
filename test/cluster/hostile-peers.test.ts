// Nothing a peer address, a peer's answer or a peer's failure does ends a node. Two real nodes on
// a real Redis (and PostgreSQL): the node registry in Redis is written by hand with addresses no
// node would announce (https, another scheme, not a URL) and with "peers" that answer garbage, an
// endless body or a reset; a push forwarded to each is SESSION_NOT_FOUND and the node lives on.
// An https PEER_URL is refused at start with a message naming PEER_URL (docs/scaling.md).
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import t from 'tap';
import { bearer, expectRefusal, postJson, type StartedServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { CLUSTER_SECRET, clusterNodes, startCluster } from './cluster-helpers.js';

const KEY = 'hostile-peers-key-a';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited` } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const redis = new Redis({ path: cluster.redis!.socket, lazyConnect: false });
t.teardown(() => redis.disconnect());

const servers: Server[] = [];
t.teardown(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
const sockets = new Set<Socket>();
t.teardown(() => { for (const s of sockets) s.destroy(); });

/** A TCP server on loopback that does `onConnection` with each connection; resolves its http URL. */
async function fakePeer(onConnection: (socket: Socket) => void): Promise<string> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

let counter = 0;
/** Announces a node at `url` in the registry (as a node's heartbeat would), for a minute. */
async function announce(url: string): Promise<string> {
  const id = `evil-${++counter}`;
  await redis.multi().set(`jm:node:${id}`, url, 'PX', 60_000).sadd('jm:nodes', id).exec();
  return id;
}

const sessionOf = (owner: string): string => `${owner}.${'A'.repeat(22)}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const hostile: Array<[string, () => Promise<string>]> = [
  ['an https URL', async () => 'https://127.0.0.1:9'],
  ['another scheme', async () => 'ftp://127.0.0.1:21'],
  ['not a URL at all', async () => 'http://[::1'],
  ['an empty string', async () => ''],
  ['a peer answering garbage', () => fakePeer((s) => s.once('data', () => s.end('this is not HTTP\r\n\r\n')))],
  ['a peer answering 200 with a broken outcome header', () => fakePeer((s) => s.once('data', () => {
    s.end('HTTP/1.1 200 OK\r\nx-jsonmend-peer-outcome: {not json\r\ncontent-length: 7\r\n\r\n{"a":1}');
  }))],
  ['a peer answering a body that never ends', () => fakePeer((s) => s.once('data', () => {
    s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = `${(1 << 20).toString(16)}\r\n${'x'.repeat(1 << 20)}\r\n`;
    const pump = (): void => {
      if (s.destroyed) return;
      while (s.write(chunk)) { /* until the socket pushes back */ }
      s.once('drain', pump);
    };
    pump();
  }))],
  ['a peer resetting the connection', () => fakePeer((s) => s.once('data', () => s.resetAndDestroy()))],
];

for (const [name, url] of hostile) {
  t.test(`a registry entry with ${name}: the forwarding node answers SESSION_NOT_FOUND and lives on`, async (t) => {
    const owner = await announce(await url());
    // node-b reads the entry on its next heartbeat: until then a forward would find no owner at all.
    t.ok(await msUntil(15_000, async () => (await clusterNodes(b.url)) === 3) < Infinity, 'node-b has read the entry');
    for (const contract of ['envelope', 'finalize'] as const) {
      const answer = contract === 'envelope'
        ? await postJson(`${b.url}/v1/repair/stream/push`, { session_id: sessionOf(owner), chunk: '[1' }, bearer(KEY))
        : await postJson(`${b.url}/v1/repair/stream/finalize`, { session_id: sessionOf(owner) }, bearer(KEY));
      t.equal(answer.body.metadata?.errors?.[0]?.code, 'SESSION_NOT_FOUND', `${contract}: ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
    await sleep(200);
    t.notOk(b.exited(), 'node-b still runs');
    t.equal((await fetch(`${b.url}/health`)).status, 200, 'and answers');
    await redis.multi().del(`jm:node:${owner}`).srem('jm:nodes', owner).exec();
    t.ok(await msUntil(15_000, async () => (await clusterNodes(b.url)) === 2) < Infinity, 'and forgotten it');
  });
}

t.test('both nodes still serve a session across them after all that', async (t) => {
  const id = (await postJson(`${a.url}/v1/repair/stream/start`, {}, bearer(KEY))).body.session_id as string;
  const pushed = await postJson(`${b.url}/v1/repair/stream/push`, { session_id: id, chunk: '[1' }, bearer(KEY));
  t.equal(pushed.body.state?.buffered, '[1');
  t.notOk(a.exited() || b.exited());
});

t.test('an https PEER_URL is refused at start, naming PEER_URL', async (t) => {
  const refused = await expectRefusal({ ...cluster.env, NODE_ID: 'node-tls', PEER_URL: 'https://10.0.0.5:8443', CLUSTER_SECRET });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /PEER_URL/);
  t.match(refused.stderr, /http:\/\//, 'the message says what is accepted');
});

// A forward captured on the wire is accepted once. Two real nodes on Redis and PostgreSQL; the
// owner's PEER_URL points at a relay in this test that records what the other node sends it. The
// exact signed request, sent again within its 10 s window, is refused (401) and reaches nothing: the
// chunk is not appended twice and the session's buffer is not echoed to whoever replays it.
import { connect, createServer, type Server, type Socket } from 'node:net';
import t from 'tap';
import { PEER_PATH } from '../../server/streaming/forwarding/peer-client.js';
import { PeerReplayGuard, SENDER_TTL_MS } from '../../server/streaming/forwarding/peer-replay.js';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { freePort } from '../../support/free-port.js';
import { clusterNodes, startCluster } from './cluster-helpers.js';

const KEY = 'forward-replay-key-a';

/** A TCP relay to `port` that records every byte sent through it towards the owner. */
async function recordingRelay(targetPort: number): Promise<{ port: number; server: Server; recorded: () => Buffer; clear: () => void }> {
  let recorded: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (data: Buffer) => recorded.push(Buffer.from(data)));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as { port: number }).port, server, recorded: () => Buffer.concat(recorded), clear: () => (recorded = []) };
}

/** Sends raw bytes to the owner's port and resolves with the status and body of the answer. */
function replay(port: number, bytes: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      raw += text;
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/content-length: *(\d+)/i.exec(raw.slice(0, end))?.[1] ?? 0);
      if (Buffer.byteLength(raw.slice(end + 4)) < length) return;
      socket.destroy();
      resolve({ status: Number(raw.split(' ')[1]), body: raw.slice(end + 4, end + 4 + length) });
    });
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const ownerPort = await freePort();
const relay = await recordingRelay(ownerPort);
const cluster = await startCluster(t, { nodeIds: ['node-a'], env: { API_KEYS: `${KEY}:unlimited` } });
const [a] = cluster.nodes as [StartedServer];
const owner = await cluster.add('node-r', { PORT: String(ownerPort), PEER_URL: `http://127.0.0.1:${relay.port}` });
// Forwards need node-a to have read node-r's registry entry (its next heartbeat): wait for it to count two nodes.
t.ok(await msUntil(15_000, async () => (await clusterNodes(a.url)) === 2) < Infinity, 'node-a sees node-r');
const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;

/** The one forwarded request the relay carried while `send` ran. */
async function captured(send: () => Promise<unknown>): Promise<Buffer> {
  relay.clear();
  await send();
  const bytes = relay.recorded();
  t.ok(bytes.toString('latin1').startsWith(`POST ${PEER_PATH} `), 'the relay carried the forward');
  return bytes;
}

t.test('envelope: the captured forward of a push, replayed to the owner, is refused and appends nothing', async (t) => {
  const id = (await postJson(at(owner, 'start'), {}, bearer(KEY))).body.session_id as string;
  const wire = await captured(async () => {
    const pushed = await postJson(at(a, 'push'), { session_id: id, chunk: '{"secret": ' }, bearer(KEY));
    t.equal(pushed.body.state?.buffered, '{"secret": ', 'forwarded once and answered');
  });
  const again = await replay(ownerPort, wire);
  t.equal(again.status, 401, 'the replay is refused');
  t.notMatch(again.body, /secret/, 'and echoes nothing of the session');
  const next = await postJson(at(owner, 'push'), { session_id: id, chunk: '1' }, bearer(KEY));
  t.equal(next.body.state.buffered, '{"secret": 1', 'the chunk was appended once');
});

t.test('compact: the same for a forward of a compact push', async (t) => {
  const uuid = '00000000-0000-4000-8000-00000000beef';
  t.equal((await postJson(at(owner, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200);
  const wire = await captured(async () => {
    const pushed = await postJson(at(a, 'push'), { sessionId: uuid, content: '[1, ' }, bearer(KEY));
    t.equal(pushed.body.bufferedBytes, 4);
  });
  t.equal((await replay(ownerPort, wire)).status, 401, 'the replay is refused');
  const next = await postJson(at(owner, 'push'), { sessionId: uuid, content: '2' }, bearer(KEY));
  t.equal(next.body.bufferedBytes, 5, 'the chunk was appended once');
});

t.test('forwards keep working after replays: each genuine one is accepted', async (t) => {
  const id = (await postJson(at(owner, 'start'), {}, bearer(KEY))).body.session_id as string;
  const pieces = ['[', '1', ',', '2'];
  const answers = await Promise.all(pieces.map((chunk) => postJson(at(a, 'push'), { session_id: id, chunk }, bearer(KEY))));
  for (const answer of answers) t.equal(answer.status, 200);
  t.equal((await postJson(at(owner, 'push'), { session_id: id, chunk: '' }, bearer(KEY))).body.state.buffered.length, 4, 'four concurrent forwards, each accepted once');
});

t.test('the replay window: out of order accepted, repeats and stale ones refused, silent senders forgotten', async (t) => {
  const guard = new PeerReplayGuard();
  t.ok(guard.accept('sender-aaaa:2', 0));
  t.ok(guard.accept('sender-aaaa:1', 0), 'overtaken on another connection: still accepted');
  t.notOk(guard.accept('sender-aaaa:2', 0), 'a repeat');
  t.notOk(guard.accept('sender-aaaa:1', 0), 'a repeat of the late one');
  t.ok(guard.accept('sender-bbbb:1', 0), 'another sender has its own sequence');
  t.ok(guard.accept('sender-aaaa:70000', 0));
  t.notOk(guard.accept('sender-aaaa:3', 0), 'older than the window: refused');
  t.ok(guard.accept('sender-aaaa:69999', 0), 'inside the window: accepted once');
  for (const bad of ['', 'x:1', 'sender-aaaa:0', 'sender-aaaa:-1', 'sender-aaaa:1e3', 'sender aaaa:5']) t.notOk(guard.accept(bad, 0), `malformed: ${JSON.stringify(bad)}`);
  guard.accept('sender-cccc:1', SENDER_TTL_MS + 20_000);
  t.equal(guard.senders, 1, 'senders silent longer than the TTL are forgotten');
});

// PROCESSES=N on one machine: N nodes share the public port (SO_REUSEPORT), each with its own
// NODE_ID and peer port, so a session started on one is reached through any connection; a node that
// dies is restarted; SIGTERM to the primary drains them all. Without REDIS_URL it refuses to start.
import http from 'node:http';
import t from 'tap';
import { freePort } from '../../support/free-port.js';
import { startRedis } from '../../support/redis-server.js';
import { expectRefusal, startServer } from '../helpers/start-server.js';
import { CLUSTER_SECRET } from './cluster-helpers.js';

const KEY = 'processes-key';

/** POSTs on a connection of its own, so the kernel picks a node for it afresh. */
function postFresh(url: string, body: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (part: string) => (text += part)).on('end', () => resolve(JSON.parse(text)));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const pidsOf = (stdout: string, node: string): number[] =>
  [...stdout.matchAll(/"msg":"node started","node":"([^"]+)","pid":(\d+)/g)].filter((m) => m[1] === node).map((m) => Number(m[2]));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Retries `check` until it gives a value; a connection reset counts as "not yet" (below). */
async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // A connection the kernel had queued on the killed node's listening socket is reset with it.
    const value = await Promise.resolve().then(check).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') return undefined;
      throw error;
    });
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('PROCESSES above 1 without REDIS_URL stops with a message that says why', async (t) => {
  const refused = await expectRefusal({ PROCESSES: '2' });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /PROCESSES=2 needs REDIS_URL/);
});

t.test('PROCESSES=2: two nodes on one port, sessions reached through any connection, restart, drain', async (t) => {
  const redis = await startRedis(t);
  const peerPort = await freePort();
  const server = await startServer(t, {
    PROCESSES: '2', REDIS_URL: redis.url, CLUSTER_SECRET, NODE_ID: 'box', API_KEYS: `${KEY}:unlimited`, LOG_LEVEL: 'info',
    PEER_URL: `http://127.0.0.1:${peerPort}`,
  }, 30_000);
  for (const i of [0, 1]) {
    // Each node's log line is written by the node itself, possibly just after the primary's "listening on".
    const joined = new RegExp(`"msg":"cluster: joined","node":"box-${i}","peerUrl":"http://127.0.0.1:${peerPort + i}"`);
    t.ok(await waitFor(`box-${i} joined`, () => (joined.test(server.stdout()) ? true : undefined), 5_000), `box-${i} takes forwards on PEER_URL's port + ${i}`);
  }
  const start = `${server.url}/v1/repair/stream/start`;
  const push = `${server.url}/v1/repair/stream/push`;
  const firstPids = [pidsOf(server.stdout(), 'box-0')[0]!, pidsOf(server.stdout(), 'box-1')[0]!];
  t.ok(firstPids.every((pid) => pid > 0 && pid !== server.child.pid), 'two node processes besides the primary');

  // New connections land on either node: the issued ids name both.
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) ids.push((await postFresh(start, {})).session_id);
  const owners = new Set(ids.map((id) => id.split('.')[0]));
  t.same([...owners].sort(), ['box-0', 'box-1'], 'both nodes answer on the shared port');
  // Every push on a fresh connection reaches its session, wherever it lands.
  let buffered = 0;
  for (const id of ids) {
    const answer = await postFresh(push, { session_id: id, chunk: '[1' });
    if (answer.state?.buffered === '[1') buffered++;
  }
  t.equal(buffered, ids.length, 'every session reached through whichever node took the connection');

  // A node killed is restarted with its NODE_ID; its sessions are gone, found nowhere, at once.
  const victimId = ids.find((id) => id.startsWith('box-0.'))!;
  process.kill(firstPids[0]!, 'SIGKILL');
  const gone = await waitFor('a push for the dead node\'s session answered', async () => {
    const answer = await postFresh(push, { session_id: victimId, chunk: ',2' });
    return answer.metadata?.errors?.[0]?.code === 'SESSION_NOT_FOUND' ? answer : undefined;
  });
  t.equal(gone.metadata.errors[0].recoverable, true, 'SESSION_NOT_FOUND, recoverable');
  const newPid = await waitFor('box-0 restarted', () => pidsOf(server.stdout(), 'box-0')[1]);
  t.not(newPid, firstPids[0]);
  await waitFor('the restarted node answering on the shared port', async () => {
    const id = (await postFresh(start, {})).session_id as string;
    return id.startsWith('box-0.') ? id : undefined;
  });
  t.match(server.stdout(), /"msg":"node exited; restarting it","node":"box-0"/);

  const stopped = await server.stop('SIGTERM');
  t.equal(stopped.code, 0, 'the primary exits 0 once every node has drained');
  for (const pid of [newPid, firstPids[1]!]) t.notOk(alive(pid), `node ${pid} stopped with it`);
});

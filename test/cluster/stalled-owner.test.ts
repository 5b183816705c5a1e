// A node that stalls (SIGSTOP: frozen, not dead) past the registry TTL is taken for gone by the
// other node, which answers its sessions' pushes SESSION_NOT_FOUND and may open its compact ids
// anew. When it wakes, nothing it holds may contradict those answers: a push answered "not found" is
// never applied later, no answer is a success with a chunk missing, and a compact id is never live
// on two nodes (docs/scaling.md "A node that stalls").
import t from 'tap';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { startCluster } from './cluster-helpers.js';

const KEY = 'cluster-stall-key';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited`, WORKERS: '1' } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;
const firstError = (body: any): { code?: string } => body.metadata?.errors?.[0] ?? body.errors?.[0] ?? {};

/** Freezes `node` while `during` runs, then thaws it and waits until it answers again. */
async function frozen<T>(node: StartedServer, during: () => Promise<T>): Promise<T> {
  node.child.kill('SIGSTOP');
  try {
    return await during();
  } finally {
    node.child.kill('SIGCONT');
    for (const until = performance.now() + 30_000; performance.now() < until;) {
      if ((await fetch(`${node.url}/health`).catch(() => null))?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

t.test('envelope: a push answered SESSION_NOT_FOUND while the owner was frozen is never part of a success', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  t.equal((await postJson(at(a, 'push'), { session_id: id, chunk: '{"a": 1, ' }, bearer(KEY))).body.state.buffered, '{"a": 1, ');
  const viaB = await frozen(a, () => postJson(at(b, 'push'), { session_id: id, chunk: '"b": 2, ' }, bearer(KEY)));
  t.equal(firstError(viaB.body).code, 'SESSION_NOT_FOUND', 'node-b: the owner is gone, the chunk not applied');
  const direct = await postJson(at(a, 'push'), { session_id: id, chunk: '"c": 3}' }, bearer(KEY));
  t.equal(firstError(direct.body).code, 'SESSION_NOT_FOUND', 'the owner, awake: the session was given up, so not applied there either');
  const final = await postJson(at(a, 'finalize'), { session_id: id }, bearer(KEY));
  t.equal(final.body.success, false, 'never finalized as a success with the chunk missing');
  t.equal(firstError(final.body).code, 'SESSION_NOT_FOUND');
});

t.test('envelope: a finalize straight after the owner wakes is not a success either', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  await postJson(at(a, 'push'), { session_id: id, chunk: '[1, ' }, bearer(KEY));
  const viaB = await frozen(a, () => postJson(at(b, 'push'), { session_id: id, chunk: '2, ' }, bearer(KEY)));
  t.equal(firstError(viaB.body).code, 'SESSION_NOT_FOUND');
  const final = await postJson(at(b, 'finalize'), { session_id: id }, bearer(KEY));
  t.not(final.body.success, true, `finalize via node-b after the wake: ${JSON.stringify(final.body).slice(0, 160)}`);
});

t.test('compact: an id opened anew on the other node while the owner was frozen is live on one node only', async (t) => {
  const uuid = '00000000-0000-4000-8000-00000000abcd';
  t.equal((await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200);
  await postJson(at(a, 'push'), { sessionId: uuid, content: '{"old": ' }, bearer(KEY));
  await frozen(a, async () => {
    const lost = await postJson(at(b, 'push'), { sessionId: uuid, content: '1}' }, bearer(KEY));
    t.equal(firstError(lost.body).code, 'SESSION_NOT_FOUND', 'node-b: the owner is gone');
    // The client starts the id again; node-b takes it once node-a's registry entry has expired in
    // Redis (until then it is "already open", as it should be).
    let reopened = await postJson(at(b, 'start'), { sessionId: uuid }, bearer(KEY));
    for (const until = performance.now() + 15_000; firstError(reopened.body).code !== undefined && performance.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reopened = await postJson(at(b, 'start'), { sessionId: uuid }, bearer(KEY));
    }
    t.same(firstError(reopened.body), {}, 'the client starts the id again: node-b takes it');
    const pushedB = await postJson(at(b, 'push'), { sessionId: uuid, content: '{"new": ' }, bearer(KEY));
    t.match(pushedB.body, { bufferedBytes: 8 }, 'node-b holds the new session');
  });
  const viaA = await postJson(at(a, 'push'), { sessionId: uuid, content: '2}' }, bearer(KEY));
  t.match(viaA.body, { sessionId: uuid, bufferedBytes: 10 }, 'the old owner, awake, drops its copy and forwards to node-b');
  const final = await postJson(at(a, 'finalize'), { sessionId: uuid }, bearer(KEY));
  const batch = await postJson(`${b.url}/v1/repair`, { content: '{"new": 2}' }, bearer(KEY));
  t.same(final.body, batch.body, 'one session answered: node-b\'s, with every chunk it was sent, as batch repair of them');
  t.equal(firstError((await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY))).body).code, 'SESSION_NOT_FOUND', 'and it is finalized once');
});

// A NODE_ID names one running node. On real nodes sharing Redis (and PostgreSQL): a second node
// started with the NODE_ID of a live one is refused at start with a message naming NODE_ID, and the
// first keeps its registry entry and its forwards; a node restarted with the NODE_ID of one that
// died (as PROCESSES restarts them) starts, once the dead one's entry has expired.
import { Redis } from 'ioredis';
import t from 'tap';
import { bearer, expectRefusal, postJson, type StartedServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { startCluster } from './cluster-helpers.js';

const KEY = 'node-ids-key-a';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited` } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const redis = new Redis({ path: cluster.redis!.socket });
t.teardown(() => redis.disconnect());
const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;

t.test('a second node with a live node\'s NODE_ID is refused at start; the first keeps its entry and forwards', async (t) => {
  const entry = await redis.get('jm:node:node-a');
  t.ok(entry?.endsWith(new URL(a.url).origin), `node-a is registered (${entry})`);
  const refused = await expectRefusal({ ...cluster.env, NODE_ID: 'node-a' }, 60_000);
  t.equal(refused.code, 1, 'exits 1');
  t.match(refused.stderr, /NODE_ID node-a is already used by a running node/);
  t.equal(await redis.get('jm:node:node-a'), entry, 'node-a\'s entry is untouched, also by the refused node\'s exit');
  await new Promise((resolve) => setTimeout(resolve, 600));
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  const pushed = await postJson(at(b, 'push'), { session_id: id, chunk: '[1' }, bearer(KEY));
  t.equal(pushed.body.state?.buffered, '[1', 'forwards still reach node-a');
});

t.test('a duplicate that got past the start (Redis frozen meanwhile) never takes nor deletes the other\'s entry', async (t) => {
  const entry = await redis.get('jm:node:node-b');
  cluster.redis!.pause();
  t.teardown(() => cluster.redis!.resume());
  const dup = await cluster.add('node-b');
  cluster.redis!.resume();
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // its heartbeats reach Redis again
  const seen = new Set<string | null>();
  for (let i = 0; i < 8; i++) {
    seen.add(await redis.get('jm:node:node-b'));
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  t.same([...seen], [entry], 'the entry stays the first node-b\'s while the duplicate runs');
  t.match(dup.stdout(), /NODE_ID node-b is already used by a running node/, 'the duplicate says so in its log');
  await dup.stop('SIGTERM');
  t.equal(await redis.get('jm:node:node-b'), entry, 'and its exit leaves the entry in place');
});

t.test('a node restarted with the NODE_ID of one that died starts once the old entry expires', async (t) => {
  await a.stop('SIGKILL');
  const again = await cluster.add('node-a');
  const id = (await postJson(at(again, 'start'), {}, bearer(KEY))).body.session_id as string;
  // node-b forwards to the new address once its heartbeat has read the new entry; until then a push
  // goes to the dead one's address and is refused without touching the session.
  let pushed: any;
  await msUntil(15_000, async () => (pushed = await postJson(at(b, 'push'), { session_id: id, chunk: '[2' }, bearer(KEY))).body.state !== undefined);
  t.equal(pushed.body.state?.buffered, '[2', 'and serves forwards');
});

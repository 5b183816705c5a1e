// A Redis restart (or outage) never makes a live streaming session look gone, never lets its id be
// opened twice, and never turns into a partial result. Two real nodes on Redis and PostgreSQL:
// sessions on node-a are pushed to through node-b without pause while Redis is killed and started
// again empty; every push is accepted, the same compact UUID cannot be opened on node-b meanwhile or
// after, and finalize answers the whole document.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { msUntil } from '../helpers/until.js';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { startCluster } from './cluster-helpers.js';

const KEY = 'redis-restart-key-a';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited` } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const redis = cluster.redis!;
const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorOf = (body: any): string | undefined => body?.metadata?.errors?.[0]?.code ?? body?.errors?.[0]?.code;
const redisCli = (...args: string[]): string => execFileSync('redis-cli', ['-s', redis.socket, ...args], { encoding: 'utf8' }).trim();

for (const outage of ['restarted empty', 'down for a second, then restarted empty'] as const) {
  t.test(`Redis ${outage}: pushes through the other node all land, the id stays taken, finalize is whole`, async (t) => {
    const uuid = `00000000-0000-4000-8000-${String(outage.length).padStart(12, '0')}`;
    const envelopeId = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
    t.equal((await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200);
    await sleep(300);
    const items: number[] = [];
    let refused = 0;
    let stop = false;
    const pusher = (async () => {
      for (let i = 0; !stop; i++) {
        const chunk = `${i === 0 ? '[' : ','}${i}`;
        const [envelope, compact] = await Promise.all([
          postJson(at(b, 'push'), { session_id: envelopeId, chunk }, bearer(KEY)),
          postJson(at(b, 'push'), { sessionId: uuid, content: chunk }, bearer(KEY)),
        ]);
        if (errorOf(envelope.body) !== undefined || errorOf(compact.body) !== undefined) {
          refused++;
          t.fail(`push ${i}: ${errorOf(envelope.body) ?? 'ok'} / ${errorOf(compact.body) ?? 'ok'}`);
          return;
        }
        items.push(i);
        await sleep(10);
      }
    })();
    await sleep(200);
    await redis.stop();
    if (outage !== 'restarted empty') await sleep(1_000);
    await redis.start();
    // The same UUID opened through the other node while the directory is rebuilt, and after.
    for (let i = 0; i < 6; i++) {
      const again = await postJson(at(b, 'start'), { sessionId: uuid }, bearer(KEY));
      t.match(errorOf(again.body), 'INVALID_REQUEST', `attempt ${i + 1} to open the UUID on node-b: already open`);
      await sleep(250);
    }
    // Each node says when it has written its entries into the new contents (`jm:restored:<id>` =
    // `jm:epoch`), and only after them: node-b trusts a missing entry only once every node has said
    // so, not after a fixed time (a node starved of CPU may take longer to write them).
    t.ok(await msUntil(15_000, async () => {
      const epoch = redisCli('GET', 'jm:epoch');
      return epoch !== '' && redisCli('GET', 'jm:restored:node-a') === epoch && redisCli('GET', 'jm:restored:node-b') === epoch;
    }) < Infinity, 'both nodes have said they wrote their entries into the new contents');
    t.ok(redisCli('--scan', '--pattern', `jm:stream:*:${uuid}`) !== '', "node-a's compact session is in the directory again");
    stop = true;
    await pusher;
    t.equal(refused, 0, `${items.length} pushes through node-b, none refused`);
    const expected = items.length === 0 ? [] : items;
    const envelope = await postJson(at(b, 'finalize'), { session_id: envelopeId }, bearer(KEY));
    t.same(envelope.body.repaired, expected, 'envelope finalize: the whole document');
    const compact = await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY));
    t.same(JSON.parse(compact.body.repaired ?? 'null'), expected, 'compact finalize: the whole document');
  });
}

t.test('Redis away and back with its contents: a compact session opened meanwhile is written back and reached through the other node', async (t) => {
  const uuid = '00000000-0000-4000-8000-00000000f0f0';
  // Saved and loaded again on start (`--dir`): the same contents, so the same epoch; the id opened
  // while Redis is down never reached it.
  redisCli('SAVE');
  await redis.stop();
  let started;
  try {
    started = await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY));
    await sleep(600);
  } finally {
    await redis.start();
  }
  t.equal(started.status, 200, 'opened on node-a while Redis was away');
  t.ok(await msUntil(15_000, async () => redisCli('--scan', '--pattern', `jm:stream:*:${uuid}`) !== '') < Infinity, 'node-a has written the id it opened meanwhile');
  // Until every node has said it wrote its entries back, a missing one is asked of every node.
  const pushed = await postJson(at(b, 'push'), { sessionId: uuid, content: '[1, 2' }, bearer(KEY));
  t.equal(errorOf(pushed.body), undefined, `a push through node-b lands: ${JSON.stringify(pushed.body).slice(0, 160)}`);
  const done = await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY));
  t.same(JSON.parse(done.body.repaired ?? 'null'), [1, 2], 'finalize through node-b answers the whole document');
});

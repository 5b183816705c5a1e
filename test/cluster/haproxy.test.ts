// deploy/haproxy.cfg in front of two real nodes sharing a real Redis and PostgreSQL: health checks, per-request
// balancing, streaming through the balancer in both contracts, the demo and sign-up limits holding
// for a client that forges X-Forwarded-For (TRUST_PROXY names HAProxy, as docs/scaling.md says), a
// node drained, stopped, replaced and put back under load without a failed request, and a node
// killed outright.
import t from 'tap';
import { freePort } from '../../support/free-port.js';
import { fetchFrom, startHaproxy } from '../../support/haproxy.js';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { startCluster } from './cluster-helpers.js';
import { ConsoleClient } from '../web/helpers.js';

const KEY = 'haproxy-key';
const ports = [await freePort(), await freePort()];
const cluster = await startCluster(t, { nodes: 0, env: { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', TRUST_PROXY: '127.0.0.1' } });
const nodes: StartedServer[] = [await cluster.add('node1', { PORT: String(ports[0]) }), await cluster.add('node2', { PORT: String(ports[1]) })];
const haproxy = await startHaproxy(t, `127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`);
await haproxy.waitUp();
const repair = `${haproxy.url}/v1/repair`;
const stream = (endpoint: string): string => `${haproxy.url}/v1/repair/stream/${endpoint}`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Clients repairing through HAProxy back to back until stopped; every answer but a repaired 200 is a failure. */
function load(clients: number): { failures: string[]; served: () => number; stop: () => Promise<void> } {
  let running = true;
  let served = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      try {
        const answer = await postJson(repair, { raw_output: '{"a": [1, 2' }, bearer(KEY));
        if (answer.status === 200 && answer.body.success === true) served++;
        else failures.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      } catch (error) {
        failures.push(`${String(error)} ${String((error as Error).cause)}`);
      }
    }
  });
  return { failures, served: () => served, stop: async () => { running = false; await Promise.all(loops); } };
}

t.test('health checks pass and each request is balanced on its own, even on one keep-alive connection', async (t) => {
  const before = await haproxy.servers();
  for (let i = 0; i < 20; i++) t.equal((await postJson(repair, { raw_output: '[1, 2' }, bearer(KEY))).body.success, true);
  const after = await haproxy.servers();
  for (const name of ['node1', 'node2']) {
    t.equal(after.get(name)!.status, 'UP');
    t.equal(after.get(name)!.total - before.get(name)!.total, 10, `${name} took every other request`);
  }
});

t.test('streaming through the balancer: pushes land on both nodes and reach the owner, both contracts', async (t) => {
  const pieces = ['{"name": "Ada", ', '"tags": ["x", ', '"y"], "n": ', '12.5, "open": [1', ', 2'];
  const whole = pieces.join('');
  // Two starts in a row: round robin gives one to each node.
  const ids = [(await postJson(stream('start'), {}, bearer(KEY))).body.session_id as string, (await postJson(stream('start'), {}, bearer(KEY))).body.session_id as string];
  const owners = new Set(ids.map((id) => id.split('.')[0]!));
  for (const id of ids) {
    for (const chunk of pieces) t.ok((await postJson(stream('push'), { session_id: id, chunk }, bearer(KEY))).body.state, 'push answered');
    const final = await postJson(stream('finalize'), { session_id: id }, bearer(KEY));
    t.same(final.body, (await postJson(repair, { raw_output: whole }, bearer(KEY))).body, 'envelope finalize = batch repair');
  }
  t.same([...owners].sort(), ['node1', 'node2'], 'round robin put a session on each node');
  const uuid = '00000000-0000-4000-8000-00000000a001';
  t.equal((await postJson(stream('start'), { sessionId: uuid }, bearer(KEY))).status, 200);
  let total = 0;
  for (const content of pieces) {
    total += Buffer.byteLength(content);
    t.equal((await postJson(stream('push'), { sessionId: uuid, content }, bearer(KEY))).body.bufferedBytes, total);
  }
  const final = await postJson(stream('finalize'), { sessionId: uuid }, bearer(KEY));
  t.same(final.body, (await postJson(repair, { content: whole }, bearer(KEY))).body, 'compact finalize = batch repair');
});

// HAProxy reaches the nodes from 127.0.0.1 (TRUST_PROXY); this client connects from 127.0.0.2.
const client = fetchFrom('127.0.0.2');
let forged = 0;
/** A new made-up address on every request, as its own header line and as a comma list. */
const forgedHeader = (): string[] => [`198.51.100.${++forged % 250}`, `203.0.113.${forged % 250}, 192.0.2.${forged % 250}`];

t.test('a client forging X-Forwarded-For through HAProxy: the demo limit (10 an hour per IP) still holds', async (t) => {
  let allowed = 0;
  let refused = 0;
  for (let i = 0; i < 16; i++) {
    const answer = await client(`${haproxy.url}/v1/demo/repair`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forgedHeader() }, body: '{"raw_output":"[1, 2"}',
    });
    const body = await answer.json();
    if (body.success === true) allowed++;
    else if (body.metadata?.errors?.[0]?.code === 'RATE_LIMIT_EXCEEDED') refused++;
  }
  t.equal(allowed, 10, 'ten demo requests for 127.0.0.2, whatever address it claims');
  t.equal(refused, 6, 'the rest refused');
});

t.test('a client forging X-Forwarded-For through HAProxy: the sign-up limit (2 a day per IP) still holds', async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const browser = new ConsoleClient(haproxy.url, { 'x-forwarded-for': forgedHeader() }, client);
    await browser.start();
    statuses.push((await browser.send('POST', 'signup', { email: `forger${i}@example.com`, password: 'correct horse battery' })).status);
  }
  t.same(statuses.slice(0, 2), [201, 201], 'two sign-ups');
  t.same(statuses.slice(2), [429, 429], 'then refused, whatever address is claimed');
});

t.test('a node drained, stopped, replaced and put back under load: no request fails', async (t) => {
  const traffic = load(4);
  await sleep(300);
  t.equal((await haproxy.command('set server nodes/node1 state drain')).trim(), '');
  await until('node1 idle', async () => ((await haproxy.servers()).get('node1')!.current === 0 ? true : undefined));
  const drainedAt = (await haproxy.servers()).get('node1')!.total;
  await sleep(400);
  t.equal((await haproxy.servers()).get('node1')!.total, drainedAt, 'drained: no new request reaches node1');
  t.equal((await nodes[0]!.stop('SIGTERM')).code, 0, 'node1 stops cleanly');
  nodes[0] = await cluster.add('node1', { PORT: String(ports[0]) });
  t.equal((await haproxy.command('set server nodes/node1 state ready')).trim(), '');
  await haproxy.waitUp();
  await until('node1 serving again', async () => ((await haproxy.servers()).get('node1')!.total > drainedAt + 20 ? true : undefined));
  await traffic.stop();
  t.ok(traffic.served() > 100, `${traffic.served()} requests served meanwhile`);
  t.same(traffic.failures, [], 'none failed');
});

t.test('a node killed: its health checks fail and it is taken out; requests then all succeed', async (t) => {
  const traffic = load(4);
  await sleep(200);
  await nodes[1]!.stop('SIGKILL');
  const failedBefore = await until('node2 marked DOWN', async () => {
    const status = (await haproxy.servers()).get('node2')!.status;
    return status.startsWith('DOWN') ? traffic.failures.length : undefined;
  }, 5_000);
  const servedAtDown = traffic.served();
  await sleep(500);
  await traffic.stop();
  t.ok(traffic.served() > servedAtDown, 'requests carry on through node1');
  t.equal(traffic.failures.length, failedBefore, 'no failure once node2 is marked down');
  // Connections refused by the dead node are retried on the live one (retry-on conn-failure); only a
  // request the node was answering when it died can fail.
  t.ok(failedBefore <= 4, `${failedBefore} request(s) cut while in flight on the killed node (at most one per client)`);
  t.comment(traffic.failures.join('\n'));
});

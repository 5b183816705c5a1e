// Limits that add up over two nodes sharing Redis (REDIS_URL) and PostgreSQL (DATABASE_URL): a free
// key's 60 a minute are 60 across both nodes, sequential or in a burst of 60 at once on each node
// (a node with no lease in hand waits for Redis's grant), the demo's 10 an hour per IP likewise, and
// GET /v1/usage on either node counts the other node's requests within about two seconds. Both
// contracts.
import t from 'tap';
import { demo, errorCodeOf, limitHeaders, newKey, repairAs, untilRefused, usageOf } from '../accounts/http-helpers.js';
import { msUntil } from '../helpers/until.js';
import { startCluster } from './cluster-helpers.js';

const FREE = newKey();
const PRO = newKey();
const BURST = newKey();
const cluster = await startCluster(t, { env: { API_KEYS: `${FREE}:free,${PRO}:pro,${BURST}:free`, TRUST_PROXY: '127.0.0.1' } });
const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];

t.test('a free key: 60 a minute across both nodes, then RATE_LIMIT_EXCEEDED from both (envelope and compact)', async (t) => {
  const started = performance.now();
  let allowed = 0;
  let refusedBy = new Set<string>();
  for (let i = 0; i < 90; i++) {
    const node = i % 2 === 0 ? a : b;
    const answer = await repairAs(node.url, FREE, { raw_output: `{"n":${i}` });
    if (errorCodeOf(answer) === 'RATE_LIMIT_EXCEEDED') refusedBy.add(node.url);
    else if (answer.body.success === true) allowed++;
    else t.fail(`unexpected answer ${JSON.stringify(answer.body)}`);
  }
  // GCRA may refill one between the loop and this request: counted with the others.
  const { answer: compact, admitted } = await untilRefused(() => repairAs(b.url, FREE, { content: '{"a":1' }));
  allowed += admitted;
  const seconds = (performance.now() - started) / 1000;
  // GCRA refills one a second for free; nothing past that while Redis answers.
  const ceiling = 60 + Math.ceil(seconds);
  t.ok(allowed >= 60 && allowed <= ceiling, `${allowed} allowed over both nodes in ${seconds.toFixed(1)} s (60 to ${ceiling}; alone each node would allow 60)`);
  t.equal(refusedBy.size, 2, 'both nodes refuse');
  t.equal(compact.status, 429, 'compact: 429');
  t.match(compact.body, { error: /Rate limit exceeded: this key allows 60 requests per minute/, retryAfter: Number });
  t.equal(limitHeaders(compact).limit, 60);
  t.ok(limitHeaders(compact).retryAfter >= 1);
});

/** How many of `answers` the rate limit let through (served, or refused later for another reason). */
const admittedOf = (answers: Array<Awaited<ReturnType<typeof repairAs>>>): number => answers.filter((a) => errorCodeOf(a) !== 'RATE_LIMIT_EXCEEDED' && a.status !== 429).length;

t.test('a burst of 60 + 60 at once on a fresh free key over both nodes: 60 get through, not 120', async (t) => {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => repairAs(i % 2 === 0 ? a.url : b.url, BURST, { raw_output: `[${i}` })));
  const seconds = (performance.now() - started) / 1000;
  const admitted = admittedOf(answers);
  const ceiling = 60 + Math.ceil(seconds);
  t.ok(admitted >= 60 - 3 && admitted <= ceiling, `${admitted} of 120 admitted in ${seconds.toFixed(2)} s (at most ${ceiling}: 60 plus GCRA's refill of one a second)`);
  t.comment(`burst 60+60 over two nodes: ${admitted} admitted`);
});

t.test('a burst of 20 demo requests from one IP at once over both nodes: exactly 10', async (t) => {
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => demo(i % 2 === 0 ? a.url : b.url, { raw_output: '[1' }, { 'x-forwarded-for': '198.51.100.99' })));
  t.equal(admittedOf(answers), 10);
});

t.test('the demo: 10 an hour per IP across both nodes', async (t) => {
  let allowed = 0;
  const refused: string[] = [];
  for (let i = 0; i < 20; i++) {
    const node = i % 2 === 0 ? a : b;
    const answer = await demo(node.url, { raw_output: '{"d":1' });
    if (errorCodeOf(answer) === 'RATE_LIMIT_EXCEEDED') refused.push(node.url);
    else if (answer.body.success === true) allowed++;
  }
  t.equal(allowed, 10, 'ten demo requests over both nodes');
  t.ok(refused.includes(a.url) && refused.includes(b.url), 'both nodes refuse');
  const compact = await demo(a.url, { content: '{"d":1' });
  t.equal(compact.status, 429, 'compact: 429');
});

t.test('GET /v1/usage on either node counts both nodes\' requests once they are flushed', async (t) => {
  for (let i = 0; i < 5; i++) t.equal((await repairAs(a.url, PRO, { raw_output: '{"u":1' })).body.success, true);
  for (let i = 0; i < 3; i++) t.equal((await repairAs(b.url, PRO, { content: '{"u":1' })).status, 200);
  for (const node of [a, b]) {
    // Each node flushes usage every second (~2 s on a quiet machine); the time is reported, not asserted.
    const ms = await msUntil(15_000, async () => (await usageOf(node.url, PRO)).body.count === 8);
    t.ok(ms < Infinity, `${node.url} reports 8 after ${ms.toFixed(0)} ms`);
  }
});

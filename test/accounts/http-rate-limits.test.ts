// Limits through HTTP against the real server and SQLite file: a free key's 60/min GCRA limit in
// both contracts with its headers, the quota's degraded service, the demo's per-IP hourly limit,
// and X-Forwarded-For ignored without TRUST_PROXY. No clock override exists, so the rate limit is
// reached by sending requests faster than the limit refills (one per second for free).
import t from 'tap';
import { hashApiKey } from '../../server/accounts/api-key.js';
import { monthOf } from '../../server/accounts/quota.js';
import { SqliteStorage } from '../../server/accounts/storage/sqlite-storage.js';
import { startServer } from '../helpers/start-server.js';
import { tempDataDir } from './helpers.js';
import { demo, errorCodeOf, limitHeaders, newKey, repairAs, untilRefused, usageOf } from './http-helpers.js';
import { msUntil } from '../helpers/until.js';

const dataDir = tempDataDir(t);
const FREE = newKey();
const PRO = newKey();
const UNLIMITED = newKey();
const ASKER = newKey();
const server = await startServer(t, {
  DATA_DIR: dataDir, DEMO_LIMIT_PER_HOUR: '3', API_KEYS: `${FREE}:free,${PRO}:pro,${UNLIMITED}:unlimited,${ASKER}:pro`,
});
const url = server.url;
const nowSeconds = (): number => Date.now() / 1000;

t.test('GET /v1/usage carries the X-RateLimit-* headers the next request would find, without counting itself', async (t) => {
  const fresh = limitHeaders(await usageOf(url, ASKER));
  t.equal(fresh.limit, 300);
  t.equal(fresh.remaining, 300, 'nothing used yet');
  await repairAs(url, ASKER, { raw_output: '{"a":1' });
  const started = performance.now();
  const second = limitHeaders(await repairAs(url, ASKER, { raw_output: '{"a":2' }));
  const asked = [limitHeaders(await usageOf(url, ASKER)), limitHeaders(await usageOf(url, ASKER))];
  // The pro tier refills one request each 0.2 s: allow the refills the measured time could hold.
  const refills = 1 + Math.ceil((performance.now() - started) / 200);
  for (const h of asked) t.ok(h.remaining >= second.remaining && h.remaining <= second.remaining + refills, `usage leaves ${h.remaining} (the repair left ${second.remaining}, ${refills} refills possible)`);
  t.equal(asked[1]!.remaining >= asked[0]!.remaining, true, 'asking twice used nothing');
  t.ok(asked[0]!.reset >= Math.floor(nowSeconds()));
  t.ok(Number.isNaN(limitHeaders(await usageOf(url, UNLIMITED)).limit), 'the unlimited tier has no limit headers');
});

t.test('free key: 60 a minute, then RATE_LIMIT_EXCEEDED (envelope 200, compact 429) with headers', async (t) => {
  const started = performance.now();
  const first = await repairAs(url, FREE, { raw_output: '{"n":0' });
  t.equal(first.body.success, true);
  const h = limitHeaders(first);
  t.equal(h.limit, 60);
  t.equal(h.remaining, 59);
  t.ok(h.reset >= Math.floor(nowSeconds()) && h.reset <= nowSeconds() + 2, 'reset: when the burst is full again (epoch s)');
  t.equal(first.headers.get('retry-after'), null, 'no Retry-After on an admitted request');

  let allowed = 1;
  let refused = first;
  let lastRemaining = h.remaining;
  let decreasing = true;
  while (allowed < 80) {
    const answer = await repairAs(url, FREE, { raw_output: `{"n":${allowed}` });
    if (errorCodeOf(answer) === 'RATE_LIMIT_EXCEEDED') { refused = answer; break; }
    t.equal(answer.body.success, true);
    const remaining = limitHeaders(answer).remaining;
    if (remaining > lastRemaining) decreasing = false;
    lastRemaining = remaining;
    allowed++;
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  t.ok(decreasing, 'X-RateLimit-Remaining never grows within the burst (at most 1 per second refills)');
  t.ok(allowed >= 60 && allowed <= 60 + Math.ceil(elapsedSeconds), `${allowed} allowed in ${elapsedSeconds.toFixed(2)} s, then refused`);

  t.equal(refused.status, 200);
  t.match(refused.body, { success: false, repaired: null, metadata: { confidence: 'low', errors: [{ code: 'RATE_LIMIT_EXCEEDED', severity: 'high', recoverable: true }] } });
  const r = limitHeaders(refused);
  t.equal(r.limit, 60);
  t.equal(r.remaining, 0);
  t.ok(r.retryAfter >= 1 && r.retryAfter <= 2, `Retry-After ${r.retryAfter} s (one request refills per second)`);
  t.ok(r.reset > nowSeconds() + 50, 'reset: about a minute away after a full burst');

  // One more may refill between the refusal above and this request (rare: a refill a second).
  const { answer: compact, admitted } = await untilRefused(() => repairAs(url, FREE, { content: '{"a":1' }));
  t.equal(compact.status, 429);
  t.same(Object.keys(compact.body).sort(), ['error', 'retryAfter']);
  t.match(compact.body, { error: /Rate limit exceeded: this key allows 60 requests per minute/, retryAfter: Number });
  t.ok(compact.body.retryAfter >= 1);
  t.equal(compact.headers.get('retry-after'), String(compact.body.retryAfter));
  t.equal(limitHeaders(compact).limit, 60);
  t.ok(compact.headers.get('x-request-id'));

  const usage = await usageOf(url, FREE);
  // A request a refill admitted after the first refusal (untilRefused) is a request served: counted.
  t.equal(usage.body.count, allowed + admitted, 'refused requests are not counted; /v1/usage still answers while limited');
});

t.test('the unlimited tier is never limited and carries no limit headers', async (t) => {
  const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => repairAs(url, UNLIMITED, { raw_output: `[${i},` })));
  t.equal(answers.filter((a) => a.body.success === true).length, 70);
  t.ok(answers.every((a) => a.headers.get('x-ratelimit-limit') === null));
});

t.test('past its monthly quota a pro key is served degraded: 30/min and QUOTA_EXCEEDED', async (t) => {
  const normal = await repairAs(url, PRO, { raw_output: '{"a":1}' });
  t.equal(limitHeaders(normal).limit, 300);
  t.same(normal.body.metadata.warnings, []);
  t.equal(normal.body.metadata.confidence, 'high');

  // Another server process sharing the database has used the quota up: the usage flush re-reads
  // the month's totals every second, so this server sees it without a restart.
  const storage = new SqliteStorage({ dataDir });
  const id = (await storage.findKeyByHash(hashApiKey(PRO)))!.id;
  await storage.addMonthlyUsage([{ keyId: id, month: monthOf(Date.now()), count: 100_000 }]);
  await storage.close();
  const seenAfter = await msUntil(3_000, async () => (await usageOf(url, PRO)).body.remaining === 0);
  t.ok(seenAfter < 3_000, `quota use from another process seen after ${seenAfter.toFixed(0)} ms`);

  const degraded = await repairAs(url, PRO, { raw_output: '{"a":1}' });
  t.equal(degraded.body.success, true, 'still served');
  t.same(degraded.body.repaired, { a: 1 });
  t.equal(degraded.body.metadata.confidence, 'medium', 'a warning makes confidence medium');
  t.match(degraded.body.metadata.warnings, [{ code: 'QUOTA_EXCEEDED', severity: 'medium' }]);
  t.equal(limitHeaders(degraded).limit, 30, 'X-RateLimit-Limit shows the degraded rate');
  const compact = await repairAs(url, PRO, { content: '{"a": true' });
  t.match(compact.body, { valid: true, confidence: 'medium', warnings: [{ code: 'QUOTA_EXCEEDED' }] });

  let served = 2;
  const started = performance.now();
  while (served < 100 && errorCodeOf(await repairAs(url, PRO, { raw_output: '{}' })) !== 'RATE_LIMIT_EXCEEDED') served++;
  const elapsedSeconds = (performance.now() - started) / 1000;
  t.ok(served >= 28 && served <= 31 + Math.ceil(elapsedSeconds / 2), `refused after ${served} degraded requests in ${elapsedSeconds.toFixed(2)} s (a 30/min burst, not 300)`);
  const { answer: refused, admitted } = await untilRefused(() => repairAs(url, PRO, { content: '{}' }));
  t.equal(refused.status, 429);
  t.match(refused.body.error, /degraded rate of 30 requests per minute/);
  const usage = await usageOf(url, PRO);
  t.equal(usage.body.count, 100_001 + served + admitted, 'degraded repairs are still counted (a refill untilRefused met included)');
});

t.test('demo: DEMO_LIMIT_PER_HOUR=3 per IP, headers on every answer, then RATE_LIMIT_EXCEEDED', async (t) => {
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await demo(url, { raw_output: `[${i},` }));
  for (const [i, a] of answers.entries()) {
    t.equal(a.body.success, true);
    t.equal(a.body.demo, true);
    const h = limitHeaders(a);
    t.equal(h.limit, 3);
    t.equal(h.remaining, 2 - i);
    t.ok(h.reset > nowSeconds() + 3_500 && h.reset <= nowSeconds() + 3_601, 'reset: an hour after the first request');
  }
  const fourth = await demo(url, { raw_output: '[4,' });
  t.equal(fourth.status, 200);
  t.match(fourth.body, { success: false, demo: true, message: String, metadata: { errors: [{ code: 'RATE_LIMIT_EXCEEDED', severity: 'high', recoverable: true }] } });
  const h = limitHeaders(fourth);
  t.same([h.limit, h.remaining], [3, 0]);
  t.equal(h.reset, limitHeaders(answers[0]!).reset, 'the window does not move');
  t.ok(h.retryAfter > 3_500 && h.retryAfter <= 3_600, `Retry-After ${h.retryAfter} s`);
  const compact = await demo(url, { content: '[5,' });
  t.equal(compact.status, 429);
  t.match(compact.body, { error: /3 requests per hour per IP address/, retryAfter: Number });
  t.equal(limitHeaders(compact).remaining, 0);
  const keyed = await repairAs(url, UNLIMITED, { raw_output: '[1,' });
  t.equal(keyed.body.success, true, 'keyed requests from the same IP are not affected');
});

t.test('without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot claim a fresh IP', async (t) => {
  for (const xff of ['203.0.113.9', '198.51.100.1, 203.0.113.10', '::1']) {
    const answer = await demo(url, { raw_output: '[1,' }, { 'x-forwarded-for': xff });
    t.equal(errorCodeOf(answer), 'RATE_LIMIT_EXCEEDED', `X-Forwarded-For: ${xff}`);
  }
});

// The pool under stress, with the test hooks armed (server/config/worker-test-hooks.ts): the queue bound
// answers SERVICE_UNAVAILABLE at once, a crashed worker's request gets INTERNAL_ERROR and the pool
// carries on, a task past TASK_TIMEOUT_MS is stopped. WORKERS=1 and INLINE_MAX_BYTES=0 send every
// repair to the single worker.
import t from 'tap';
import { rawRequest } from '../helpers/raw-http.js';
import { healthStatus } from '../hardening/helpers.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';

const KEY = 'pool-test-key-1';
const auth = bearer(KEY);
const server = await startServer(t, {
  API_KEYS: `${KEY}:unlimited`,
  WORKERS: '1',
  QUEUE_MAX: '1',
  INLINE_MAX_BYTES: '0',
  TASK_TIMEOUT_MS: '1500',
  JSONMEND_TEST_HOOKS: '1',
});
const url = `${server.url}/v1/repair`;
const slow = (ms: number): string => `{"note": "__JSONMEND_TEST_SLEEP_MS=${ms}__", "a": 1`;

const inflight = async (): Promise<number> => (await healthStatus(server.url)).body.inflightRequests;

/**
 * The repair of `raw` once a replaced worker serves again. The replacement loads the engine on its
 * first task, inside that task's deadline; on a busy machine that can exceed this file's 1.5 s
 * TASK_TIMEOUT_MS, so recovery is awaited, not assumed.
 */
async function repairedByReplacement(raw: string): Promise<unknown> {
  let repaired: unknown = null;
  await msUntil(15_000, async () => (repaired = (await postJson(url, { raw_output: raw }, auth)).body.repaired) !== null);
  return repaired;
}

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

t.test('large inputs run in the pool and are repaired there', async (t) => {
  const before = await metric('jsonmend_tasks_total{execution="pool"}');
  const answer = await postJson(url, { raw_output: '{"a":1' }, auth);
  t.same(answer.body.repaired, { a: 1 });
  t.equal(await metric('jsonmend_tasks_total{execution="pool"}'), before + 1);
});

t.test('queue bound: one running, one queued, the rest refused at once; all answered', async (t) => {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => {
    const body = i % 2 === 0 ? { raw_output: slow(400) } : { content: slow(400) };
    return postJson(url, body, auth).then((answer) => ({ ...answer, at: performance.now() - started, compact: i % 2 === 1 }));
  }));
  const refused = answers.filter((a) => (a.compact ? a.body.valid === false : a.body.success === false));
  const served = answers.filter((a) => !refused.includes(a));
  t.equal(served.length, 2, 'the worker and the one queue slot');
  t.equal(refused.length, 4);
  // A refusal is written when its request arrives, while the worker still runs its task; the first
  // served answer is written only once that task is done.
  const firstServed = Math.min(...served.map((a) => a.at));
  for (const answer of refused) {
    t.equal(answer.status, 200);
    const error = answer.compact ? answer.body.errors[0] : answer.body.metadata.errors[0];
    t.match(error, { code: 'SERVICE_UNAVAILABLE', severity: 'critical', recoverable: true, suggestion: /exponential backoff/ });
    t.ok(answer.at <= firstServed, `refused after ${answer.at.toFixed(0)} ms, before the first served answer (${firstServed.toFixed(0)} ms): without waiting for the worker`);
  }
  for (const answer of served) t.ok(answer.compact ? answer.body.valid : answer.body.success);
  t.ok(await metric('jsonmend_requests_total{route="repair",outcome="SERVICE_UNAVAILABLE"}') >= 4);
});

t.test('a crashed worker: INTERNAL_ERROR for its request, the next one succeeds', async (t) => {
  const crash = await postJson(url, { raw_output: '{"boom": "__JSONMEND_TEST_CRASH__"}' }, auth);
  t.equal(crash.status, 200);
  t.ok(crash.headers.get('x-request-id'));
  t.match(crash.body, { success: false, repaired: null, metadata: { errors: [{ code: 'INTERNAL_ERROR', severity: 'critical', recoverable: false }] } });
  const compactCrash = await postJson(url, { content: '{"boom": "__JSONMEND_TEST_CRASH__"}' }, auth);
  t.match(compactCrash.body, { valid: false, errors: [{ code: 'UNKNOWN_REPAIR_ERROR' }] });
  t.same(await repairedByReplacement('[1,2'), [1, 2]);
  const health = await (await fetch(`${server.url}/health`)).json();
  t.equal(health.pool.threads, 1, 'the dead worker was replaced');
});

t.test('TASK_TIMEOUT_MS: an overrunning task is stopped and answered INTERNAL_ERROR', async (t) => {
  const started = performance.now();
  const answer = await postJson(url, { raw_output: slow(20_000) }, auth);
  const elapsed = performance.now() - started;
  t.match(answer.body.metadata.errors[0], { code: 'INTERNAL_ERROR', message: /1500 ms/ });
  // At the deadline, not before; and stopped, not run to its 20 s end.
  t.ok(elapsed >= 1400 && elapsed < 15_000, `answered after ${elapsed.toFixed(0)} ms`);
  t.same(await repairedByReplacement('{"b":2'), { b: 2 });
});

t.test('a client that goes away mid-repair: counted as aborted, the server carries on', async (t) => {
  const before = await metric('jsonmend_requests_total{route="repair",outcome="aborted"}');
  const controller = new AbortController();
  const request = fetch(url, { method: 'POST', headers: auth, body: JSON.stringify({ raw_output: slow(400) }), signal: controller.signal });
  // Gone while the server has it (in flight), not before it arrived.
  t.ok(await msUntil(10_000, async () => (await inflight()) === 1) < Infinity, 'the repair is in flight');
  controller.abort();
  await t.rejects(request);
  const aborted = 'jsonmend_requests_total{route="repair",outcome="aborted"}';
  t.ok(await msUntil(10_000, async () => (await metric(aborted)) >= before + 1) < Infinity, 'counted as aborted');
  t.equal(await metric(aborted), before + 1);
  const next = await postJson(url, { raw_output: '[true' }, auth);
  t.same(next.body.repaired, [true]);
});

t.test('a full pool refuses a large body once its first 4 KiB are in, in the contract they show', async (t) => {
  // One running, one queued: the pool (WORKERS=1, QUEUE_MAX=1) is full for 1.2 s, within the
  // 1.5 s TASK_TIMEOUT_MS that the queued one counts from its queueing.
  const busy = [postJson(url, { raw_output: slow(600) }, auth), postJson(url, { raw_output: slow(600) }, auth)];
  t.ok(await msUntil(10_000, async () => (await inflight()) === 2) < Infinity, 'both in the server');
  const first = Buffer.from(`{"content": "${'x'.repeat(64 * 1024)}`);
  let fed = false;
  const answer = await rawRequest(server.url,
    `POST /v1/repair HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${KEY}\r\nContent-Length: 2000000\r\n\r\n`,
    (socket) => {
      if (fed) return 0; // the other 1.9 MB are never sent
      fed = true;
      socket.write(first);
      return first.length;
    });
  t.equal(answer.bytesSent, first.length, 'answered with most of the body never sent');
  const body = JSON.parse(answer.body);
  t.equal(body.valid, false, `the compact contract, read from the first chunk: ${answer.body.slice(0, 300)}`);
  t.match(body.errors[0], { code: 'SERVICE_UNAVAILABLE', recoverable: true });
  t.ok(answer.headers['x-request-id']);
  for (const done of await Promise.all(busy)) t.equal(done.body.success, true, 'the busy tasks finish normally');
});

t.test('a schema not yet compiled on the HTTP thread sends even a small body to the pool (its work is not bounded by size)', async (t) => {
  const inlineServer = await startServer(t, { API_KEYS: `${KEY}:unlimited`, JSONMEND_TEST_HOOKS: '1', TASK_TIMEOUT_MS: '300' });
  const inlineUrl = `${inlineServer.url}/v1/repair`;
  const plain = await postJson(inlineUrl, { raw_output: '{"x": "__JSONMEND_TEST_CRASH__"}' }, auth);
  t.equal(plain.body.success, true, 'small bodies without a schema run inline, where hooks do not exist');
  const withSchema = await postJson(inlineUrl, { raw_output: '{"x": "__JSONMEND_TEST_SLEEP_MS=5000__"}', schema: { type: 'object' } }, auth);
  t.match(withSchema.body.metadata.errors[0], { code: 'INTERNAL_ERROR' }, 'ran in the pool, under the deadline');
});

t.test('the hooks are inert unless JSONMEND_TEST_HOOKS=1', async (t) => {
  const plainServer = await startServer(t, { API_KEYS: `${KEY}:unlimited`, INLINE_MAX_BYTES: '0' });
  const answer = await postJson(`${plainServer.url}/v1/repair`, { raw_output: '{"boom": "__JSONMEND_TEST_CRASH__"}' }, auth);
  t.equal(answer.body.success, true);
  t.same(answer.body.repaired, { boom: '__JSONMEND_TEST_CRASH__' });
});

t.test('a client that goes away while its repair waits: the task is dropped, never run; a running one is not stopped', async (t) => {
  const stops = (): number => (server.stdout() + server.stderr()).split('stopped unexpectedly').length;
  const stopsBefore = stops();
  const cancelledBefore = await metric('jsonmend_pool_tasks_cancelled_total');
  const threadsBefore = await metric('jsonmend_pool_threads');
  // A runs (600 ms); B waits behind it and its client gives up after 150 ms.
  const running = postJson(url, { raw_output: slow(600) }, auth);
  t.ok(await msUntil(10_000, async () => (await inflight()) === 1) < Infinity, 'A is in the server');
  const gaveUp = fetch(url, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ raw_output: '{"note": "__JSONMEND_TEST_CRASH__", "b": 2' }), signal: AbortSignal.timeout(150),
  }).then(() => 'answered', () => 'gave up');
  t.equal(await gaveUp, 'gave up');
  // The server learns of the close asynchronously: wait for the drop, then check it was the only one.
  t.ok(await msUntil(10_000, async () => (await metric('jsonmend_pool_tasks_cancelled_total')) >= cancelledBefore + 1) < Infinity, 'the waiting task was dropped');
  t.equal(await metric('jsonmend_pool_tasks_cancelled_total'), cancelledBefore + 1);
  t.equal(await metric('jsonmend_pool_queue_depth'), 0, 'the dropped task left the queue');
  t.same((await running).body.repaired, { note: '__JSONMEND_TEST_SLEEP_MS=600__', a: 1 }, 'the running task finished');
  // B carried the crash marker: had it run, its worker would have died and been replaced.
  const after = await postJson(url, { raw_output: '[1,' }, auth);
  t.same(after.body.repaired, [1]);
  t.equal(await metric('jsonmend_pool_threads'), threadsBefore, 'no worker was lost');
  t.equal(stops(), stopsBefore, 'no worker stopped');

  // A client that gives up while its task runs: the task finishes, its worker stays.
  const abandoned = fetch(url, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ raw_output: slow(400) }), signal: AbortSignal.timeout(150),
  }).then(() => 'answered', () => 'gave up');
  t.equal(await abandoned, 'gave up');
  t.equal(await metric('jsonmend_pool_tasks_cancelled_total'), cancelledBefore + 1, 'a running task is not counted as dropped');
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.same((await postJson(url, { raw_output: '[2,' }, auth)).body.repaired, [2]);
  t.equal(await metric('jsonmend_pool_threads'), threadsBefore, 'the worker that ran it is still there');
});

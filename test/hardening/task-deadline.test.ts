// The per-task deadline and worker crashes: a pool task that overruns
// TASK_TIMEOUT_MS is stopped, its worker replaced, and its request answered INTERNAL_ERROR under its
// own X-Request-ID, while the other worker keeps serving; a worker killed mid-request likewise.
// Test hooks (server/config/worker-test-hooks.ts) make a worker sleep or exit on a marker in the input.
import t from 'tap';
import { startServer } from '../helpers/start-server.js';
import { AUTH, KEY, assertHealthy, assertJsonAnswer, errorCodeOf, unexpectedStderr, waitForThreads } from './helpers.js';

const TIMEOUT_MS = 2000;
const server = await startServer(t, {
  API_KEYS: `${KEY}:unlimited`,
  WORKERS: '2',
  QUEUE_MAX: '16',
  INLINE_MAX_BYTES: '0', // every repair goes to the pool
  TASK_TIMEOUT_MS: String(TIMEOUT_MS),
  JSONMEND_TEST_HOOKS: '1',
  LOG_LEVEL: 'error',
});
const URL_REPAIR = `${server.url}/v1/repair`;

interface Answer { status: number; headers: Headers; text: string; body: any; ms: number }

async function post(body: object, requestId?: string): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = { ...AUTH, 'content-type': 'application/json' };
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  const response = await fetch(URL_REPAIR, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text), ms: performance.now() - started };
}

const sleepFor = (ms: number): string => `{"note": "__JSONMEND_TEST_SLEEP_MS=${ms}__", "a": 1`;
const CRASH = '{"boom": "__JSONMEND_TEST_CRASH__"';

/**
 * Waits until both workers run tasks side by side (two 600 ms sleeps end within 1.15 s). /health
 * counts a (re)started worker at once, but it needs 0.3-0.5 s to load the engine (seconds on a
 * saturated machine), and a task queued for it meanwhile counts against its deadline.
 */
async function bothWorkersReady(): Promise<boolean> {
  const until = performance.now() + 20_000;
  while (performance.now() < until) {
    const started = performance.now();
    const probes = await Promise.all([post({ raw_output: sleepFor(600) }), post({ raw_output: sleepFor(600) })]);
    if (probes.every((p) => p.body.success === true) && performance.now() - started < 1150) return true;
  }
  return false;
}

t.test('an overrunning task is stopped at TASK_TIMEOUT_MS while the other worker keeps serving', async (t) => {
  t.ok(await bothWorkersReady(), 'two workers running side by side');
  const stuck = post({ raw_output: sleepFor(30_000) }, 'deadline-envelope-1');
  // Meanwhile, the second worker serves requests one after another.
  let served = 0;
  let slowest = 0;
  const until = performance.now() + TIMEOUT_MS * 0.8;
  while (performance.now() < until) {
    const answer = await post({ raw_output: `[${served},` });
    if (answer.body.repaired?.[0] !== served) break;
    slowest = Math.max(slowest, answer.ms);
    served++;
  }
  t.ok(performance.now() >= until, 'every request during the overrun was repaired');
  t.ok(served >= 3, `${served} requests served while one worker was stuck (slowest ${slowest.toFixed(0)} ms)`);
  const answer = await stuck;
  t.ok(answer.ms >= TIMEOUT_MS * 0.95 && answer.ms < TIMEOUT_MS + 2000, `stopped after ${answer.ms.toFixed(0)} ms`);
  t.equal(answer.status, 200);
  t.equal(answer.headers.get('x-request-id'), 'deadline-envelope-1', 'answered under its own request id');
  assertJsonAnswer(t, answer.headers, answer.text, 'the overrun answer');
  t.match(answer.body, { success: false, repaired: null, metadata: { errors: [{ code: 'INTERNAL_ERROR', message: /did not finish within 2000 ms/ }] } });
  t.ok(await waitForThreads(server.url, 2), 'the stopped worker was replaced');
  const log = server.stdout().split('\n').find((line) => line.includes('"requestId":"deadline-envelope-1"'));
  t.match(log, /"level":"error".*"msg":"repair failed"/, 'the overrun is logged at error with the request id');
  t.notMatch(log, /JSONMEND_TEST_SLEEP/, 'the log line does not quote the input');
});

t.test('the compact contract gets UNKNOWN_REPAIR_ERROR, with a generated request id', async (t) => {
  const answer = await post({ content: sleepFor(30_000) });
  t.equal(errorCodeOf(answer.body), 'UNKNOWN_REPAIR_ERROR');
  t.match(answer.headers.get('x-request-id'), /^[A-Za-z0-9_-]+-[0-9a-z]+$/);
  t.ok(await waitForThreads(server.url, 2));
});

t.test('both workers stuck at once: both answered at the deadline, then the pool serves again', async (t) => {
  const answers = await Promise.all([post({ raw_output: sleepFor(30_000) }, 'stuck-a'), post({ raw_output: sleepFor(30_000) }, 'stuck-b')]);
  for (const answer of answers) t.equal(errorCodeOf(answer.body), 'INTERNAL_ERROR', `${answer.headers.get('x-request-id')} stopped`);
  t.ok(await waitForThreads(server.url, 2), 'both replaced');
  t.ok(await bothWorkersReady(), 'both replacements running');
  const after = await Promise.all(Array.from({ length: 6 }, (_, i) => post({ raw_output: `{"i": ${i}` })));
  t.same(after.map((a) => a.body.repaired.i), [0, 1, 2, 3, 4, 5], 'the refilled pool serves');
});

t.test('a worker killed mid-request: INTERNAL_ERROR for its request only; queued requests still run', async (t) => {
  t.ok(await bothWorkersReady());
  // The crash goes first; ten more arrive at once and queue behind the two workers.
  const crash = post({ raw_output: CRASH }, 'crash-mid-request-1');
  const others = Array.from({ length: 10 }, (_, i) => post({ raw_output: `{"n": ${i}, "pad": "${'p'.repeat(10_000)}"` }));
  const answer = await crash;
  t.equal(answer.headers.get('x-request-id'), 'crash-mid-request-1');
  assertJsonAnswer(t, answer.headers, answer.text, 'the crash answer');
  t.match(answer.body.metadata.errors[0], { code: 'INTERNAL_ERROR', message: /stopped unexpectedly/ });
  const results = await Promise.all(others);
  t.same(results.map((r) => r.body.repaired?.n), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'every other request was answered correctly');
  t.ok(await waitForThreads(server.url, 2), 'the dead worker was replaced');
});

t.test('repeated crashes leave the server healthy and its logs clean', async (t) => {
  for (let i = 0; i < 2; i++) {
    // A replacement worker needs its start-up time; a task queued for it meanwhile counts against
    // its deadline (docs/reliability.md), so each round starts with both workers running.
    t.ok(await bothWorkersReady(), `round ${i}: both workers running`);
    const [crashed, normal] = await Promise.all([post({ raw_output: CRASH }), post({ raw_output: '{"ok": true' })]);
    t.equal(errorCodeOf(crashed.body), 'INTERNAL_ERROR');
    t.same(normal.body.repaired, { ok: true }, `round ${i}: ${JSON.stringify(normal.body.metadata?.errors)} ${normal.ms.toFixed(0)} ms`);
  }
  t.ok(await waitForThreads(server.url, 2));
  await assertHealthy(t, server.url, 'after the crashes');
  t.equal(server.child.exitCode, null, 'the process never went down');
  t.same(unexpectedStderr(server.stderr()), [], 'nothing on stderr');
  const errors = server.stdout().split('\n').filter((line) => line.includes('"level":"error"'));
  t.ok(errors.every((line) => /"msg":"repair failed"/.test(line) && !/at .*\.(ts|js):\d+/.test(line)), `${errors.length} error lines, each a repair failure without a stack`);
});

t.test('a request sent right at start-up does not spend its deadline waiting for the workers to load', async (t) => {
  // Loading the engine in a worker takes 0.3-0.5 s (seconds on a busy machine): far over 100 ms.
  const fresh = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2', INLINE_MAX_BYTES: '0', TASK_TIMEOUT_MS: '100' });
  const answers = await Promise.all([0, 1, 2].map((i) => fetch(`${fresh.url}/v1/repair`, {
    method: 'POST', headers: AUTH, body: JSON.stringify({ raw_output: `{"first": ${i}` }),
  }).then((r) => r.json())));
  t.same(answers.map((a) => a.repaired), [{ first: 0 }, { first: 1 }, { first: 2 }], 'all three repaired within a 100 ms deadline');
});

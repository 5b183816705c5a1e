// One tenant's streaming load cannot take other tenants' sessions with it: a burst of calls that
// together keep the worker busy far past TASK_TIMEOUT_MS, each well within it, is a busy worker,
// not a hung one (the watchdog times a call from when the worker starts it), and one account's
// calls wait on the main thread behind its own earlier ones (account-work.ts), so another tenant's
// push is not queued behind the whole burst. One worker, the test hooks' sleep marker for work of
// a known length (server/worker-test-hooks.ts).
import t from 'tap';
import { healthStatus } from '../hardening/helpers.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';

const TENANT = 'isolation-tenant-pro';
const FREE = ['isolation-free-1', 'isolation-free-2', 'isolation-free-3', 'isolation-free-4'];
const VICTIM = 'isolation-victim';
const server = await startServer(t, {
  API_KEYS: [`${TENANT}:pro`, ...FREE.map((k) => `${k}:free`), `${VICTIM}:free`].join(','),
  WORKERS: '1',
  TASK_TIMEOUT_MS: '1000',
  JSONMEND_TEST_HOOKS: '1',
});
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
/** 300 ms of work in the worker: a dozen of them is 3.6 s, each a third of the deadline. */
const SLOW = '["__JSONMEND_TEST_SLEEP_MS=300__"';

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

async function start(key: string): Promise<string> {
  const { body } = await postJson(at('start'), {}, bearer(key));
  return body.session_id;
}

/** Waits until the whole burst has reached the server (in flight there, or already answered). */
async function burstArrived(t: { ok(value: unknown, m?: string): unknown }, size: number, answered: () => number): Promise<void> {
  const inflight = async (): Promise<number> => (await healthStatus(server.url)).body.inflightRequests;
  t.ok(await msUntil(10_000, async () => (await inflight()) + answered() >= size) < Infinity, 'the burst is in the server');
}

const push = (key: string, id: string, chunk: string) => postJson(at('push'), { session_id: id, chunk }, bearer(key));

/** The victim's session, open before the load starts. */
async function victimSession(t: { equal(a: unknown, b: unknown, m?: string): unknown }): Promise<string> {
  const id = await start(VICTIM);
  t.equal((await push(VICTIM, id, '{"v": [1, 2')).body.state.brace_depth, 2, 'victim: open, pushed');
  return id;
}

async function victimSurvives(t: { same(a: unknown, b: unknown, m?: string): unknown }, id: string): Promise<void> {
  const final = await postJson(at('finalize'), { session_id: id }, bearer(VICTIM));
  t.same(final.body.repaired, { v: [1, 2, 3] }, 'victim: its whole document came back');
}

t.test('one pro key: a dozen slow pushes at once; another tenant\'s session survives, and is not queued behind them', async (t) => {
  const victim = await victimSession(t);
  const sessions = await Promise.all(Array.from({ length: 12 }, () => start(TENANT)));
  const order: string[] = [];
  const load = sessions.map((id, i) => push(TENANT, id, SLOW).then((answer) => {
    order.push(`tenant ${i}`);
    return answer;
  }));
  await burstArrived(t, sessions.length, () => order.length);
  const mine = await push(VICTIM, victim, ', 3]');
  order.push('victim');
  t.equal(mine.body.state?.json_parseable, false, 'victim: its push answered');
  const answers = await Promise.all(load);
  t.same(answers.filter((a) => a.body.state === undefined).map((a) => a.body), [], 'every tenant push answered with a state');
  t.ok(order.indexOf('victim') < order.length - 1, `the victim's push was answered before the tenant's burst ended (${order.join(', ')})`);
  await victimSurvives(t, victim);
  t.equal(await metric('jsonmend_stream_worker_restarts_total'), 0, 'no worker was stopped');
  t.ok(await metric('jsonmend_stream_calls_waited_total') > 0, 'the tenant\'s calls waited for its own earlier ones');
  for (const id of sessions) await postJson(at('finalize'), { session_id: id }, bearer(TENANT));
});

t.test('four free keys of one tenant, three slow pushes each at once: another tenant\'s session survives', async (t) => {
  const victim = await victimSession(t);
  const sessions = (await Promise.all(FREE.map(async (key) => Promise.all([start(key), start(key), start(key)].map(async (id) => ({ key, id: await id })))))).flat();
  let answered = 0;
  const load = Promise.all(sessions.map(({ key, id }) => push(key, id, SLOW).finally(() => answered++)));
  await burstArrived(t, sessions.length, () => answered);
  t.equal((await push(VICTIM, victim, ', 3]')).body.state?.json_parseable, false, 'victim: its push answered');
  const answers = await load;
  t.same(answers.filter((a) => a.body.state === undefined).map((a) => a.body), [], 'every tenant push answered with a state');
  await victimSurvives(t, victim);
  t.equal(await metric('jsonmend_stream_worker_restarts_total'), 0, 'no worker was stopped');
});

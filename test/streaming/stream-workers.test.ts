// Streaming workers dying with sessions open, with the test hooks armed (server/config/worker-test-hooks.ts):
// a chunk holding the crash marker kills its worker. Its sessions answer SESSION_NOT_FOUND, calls
// waiting on it are answered, the worker is replaced, the other worker's sessions carry on. A push
// that overruns TASK_TIMEOUT_MS gets its worker stopped by the watchdog.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'workers-key';
const auth = bearer(KEY);
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2', TASK_TIMEOUT_MS: '1000', JSONMEND_TEST_HOOKS: '1' });
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
const CRASH = '__JSONMEND_TEST_CRASH__';

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

async function start(): Promise<string> {
  const { body } = await postJson(at('start'), {}, auth);
  return body.session_id;
}

const push = (id: string, chunk: string) => postJson(at('push'), { session_id: id, chunk }, auth);
const codeOf = (body: any): string | undefined => body.metadata?.errors?.[0]?.code;

t.test('a crashed worker takes its sessions; the other worker carries on', async (t) => {
  // Least-loaded assignment, ties to the first worker: a and c on worker 0, b and d on worker 1.
  const [a, b, c] = [await start(), await start(), await start()];
  const d = '00000000-0000-4000-8000-00000000000d';
  await postJson(at('start'), { sessionId: d }, auth);
  for (const id of [a, b, c]) t.equal((await push(id, '[1')).body.state.brace_depth, 1);
  t.equal((await postJson(at('push'), { sessionId: d, content: '{"x": 1' }, auth)).body.bufferedBytes, 7);

  const [crash, racing] = await Promise.all([push(a, `, "${CRASH}"`), push(c, ', 2')]);
  t.match(crash.body.metadata.errors[0], { code: 'SESSION_NOT_FOUND', recoverable: true, message: /worker .* stopped/ });
  t.equal(codeOf(racing.body), 'SESSION_NOT_FOUND', 'a call racing the crash is answered, not left hanging');
  t.equal(codeOf((await push(c, ']')).body), 'SESSION_NOT_FOUND', 'the crashed worker\'s other session is gone');
  t.equal(codeOf((await postJson(at('finalize'), { session_id: a }, auth)).body), 'SESSION_NOT_FOUND');

  t.equal((await push(b, ', 2]')).body.state.json_parseable, true, 'the other worker\'s session is intact');
  t.same((await postJson(at('finalize'), { session_id: b }, auth)).body.repaired, [1, 2]);
  const dFinal = await postJson(at('finalize'), { sessionId: d }, auth);
  t.equal(dFinal.body.repaired, '{"x":1}');

  t.equal(await metric('jsonmend_stream_sessions_ended_total{reason="worker_lost"}'), 2);
  t.equal(await metric('jsonmend_stream_worker_restarts_total'), 1);
  t.equal(await metric('jsonmend_stream_workers'), 2, 'replaced');
  const fresh = await start();
  t.equal((await push(fresh, '{"ok": true}')).body.state.json_parseable, true, 'new sessions work');
  t.same((await postJson(at('finalize'), { session_id: fresh }, auth)).body.repaired, { ok: true });
  const health = await fetch(`${server.url}/health`);
  t.equal(health.status, 200, 'the process is fine');
});

t.test('a push that overruns TASK_TIMEOUT_MS: its worker is stopped and the push answered', async (t) => {
  const [a, b] = [await start(), await start()];
  await push(b, '[');
  const began = performance.now();
  const slow = await push(a, '"__JSONMEND_TEST_SLEEP_MS=20000__"');
  const elapsed = performance.now() - began;
  t.match(slow.body.metadata.errors[0], { code: 'INTERNAL_ERROR', message: /1000 ms/ });
  // At the deadline, not before; and stopped, not run to its 20 s end.
  t.ok(elapsed >= 950 && elapsed < 15_000, `answered after ${elapsed.toFixed(0)} ms`);
  t.equal(codeOf((await push(a, '1')).body), 'SESSION_NOT_FOUND');
  t.equal((await push(b, ']')).body.state.json_parseable, true, 'the session on the other worker is fine');
  await postJson(at('finalize'), { session_id: b }, auth);
  const compactSlow = '00000000-0000-4000-8000-0000000000aa';
  await postJson(at('start'), { sessionId: compactSlow }, auth);
  t.equal((await postJson(at('push'), { sessionId: compactSlow, content: '[]' }, auth)).body.valid, true, 'a replacement serves new sessions');
  await postJson(at('finalize'), { sessionId: compactSlow }, auth);
  t.equal(await metric('jsonmend_stream_sessions'), 0);
});

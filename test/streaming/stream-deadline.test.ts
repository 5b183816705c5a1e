// One push that overruns fails that call, not the worker: the engine stops a push past half of
// TASK_TIMEOUT_MS with WORK_DEADLINE_EXCEEDED, that session ends, and another session on the same
// worker (WORKERS=1) carries on and finalizes. Real server, real HTTP. The heavy push (4 MB of
// `[{},{},…` with a progressive preview) takes several times the 0.5 s budget on any machine.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'deadline-key';
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, TASK_TIMEOUT_MS: '1000' });
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
const auth = bearer(KEY);

t.test('a push past the engine budget answers WORK_DEADLINE_EXCEEDED; other sessions live on', async (t) => {
  const other = (await postJson(at('start'), {}, auth)).body.session_id;
  t.equal((await postJson(at('push'), { session_id: other, chunk: '{"a": [1, ' }, auth)).status, 200);
  const heavy = (await postJson(at('start'), { preview: 'progressive' }, auth)).body.session_id;
  const answer = await postJson(at('push'), { session_id: heavy, chunk: '[' + '{},'.repeat(1_300_000) }, auth);
  t.match(answer.body.metadata?.errors?.[0], { code: 'WORK_DEADLINE_EXCEEDED', recoverable: false });
  const gone = await postJson(at('push'), { session_id: heavy, chunk: '1' }, auth);
  t.equal(gone.body.metadata?.errors?.[0]?.code, 'SESSION_NOT_FOUND', 'the overrun session ended');
  t.equal((await postJson(at('push'), { session_id: other, chunk: '2]}' }, auth)).body.state?.json_parseable, true, 'the other session on the worker lives on');
  const done = await postJson(at('finalize'), { session_id: other }, auth);
  t.same(done.body.repaired, { a: [1, 2] });
});

t.test('a batch repair past the engine budget answers WORK_DEADLINE_EXCEEDED', async (t) => {
  const answer = await postJson(`${server.url}/v1/repair`, { raw_output: '[' + '{a:w},'.repeat(600_000) + '[x y]' }, auth);
  const code = answer.body.metadata?.errors?.[0]?.code;
  // Fast enough on an idle machine to finish; it must never be the watchdog's INTERNAL_ERROR.
  t.ok(answer.body.success === true || code === 'WORK_DEADLINE_EXCEEDED', `success or WORK_DEADLINE_EXCEEDED (got ${code ?? 'success'})`);
});

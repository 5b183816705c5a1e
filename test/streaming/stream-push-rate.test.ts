// A streaming session costs one request at `start`, against the per-minute rate and the quota;
// its pushes are bounded by push-rate.ts instead: per session (STREAM_PUSH_RATE, bursts of
// STREAM_PUSH_BURST) and per account by tier (free 200/s). Against the real server; every bound on
// what was admitted is derived from the elapsed time measured around the pushes.
import t from 'tap';
import { bearer, postJson, startServer, type JsonAnswer } from '../helpers/start-server.js';
import { errorCodeOf, limitHeaders, untilRefused } from '../accounts/http-helpers.js';

const PRO = 'push-rate-pro-key';
const FREE = 'push-rate-free-key';
const server = await startServer(t, { API_KEYS: `${PRO}:pro,${FREE}:free` });
const at = (url: string, endpoint: string): string => `${url}/v1/repair/stream/${endpoint}`;

async function start(url: string, key: string): Promise<JsonAnswer> {
  return postJson(at(url, 'start'), {}, bearer(key));
}
const push = (url: string, key: string, id: string, chunk: string) => postJson(at(url, 'push'), { session_id: id, chunk }, bearer(key));

t.test('a pro key runs sessions of 150 token pushes back to back: no 429, the minute rate spent once per session', async (t) => {
  // 4 sessions × 150 pushes = 600 pushes, twice the pro tier's 300 requests a minute.
  for (let s = 0; s < 4; s++) {
    const started = await start(server.url, PRO);
    t.equal(started.status, 200);
    const id = started.body.session_id;
    const afterStart = limitHeaders(started).remaining;
    const tokens = ['{"items": ['];
    for (let i = 0; i < 148; i++) tokens.push(i === 0 ? '"t0"' : `, "t${i}"`);
    tokens.push(']}');
    let last: JsonAnswer | null = null;
    for (const token of tokens) {
      last = await push(server.url, PRO, id, token);
      if (last.status !== 200 || errorCodeOf(last) !== undefined) break;
    }
    t.equal(errorCodeOf(last!), undefined, `session ${s}: all ${tokens.length} pushes admitted`);
    t.ok(limitHeaders(last!).remaining >= afterStart, `session ${s}: pushes used none of the minute rate (${limitHeaders(last!).remaining} left, ${afterStart} after start)`);
    const done = await postJson(at(server.url, 'finalize'), { session_id: id }, bearer(PRO));
    t.equal(done.body.repaired.items.length, 148, `session ${s}: finalized whole`);
  }
});

t.test("a free account's sessions together cannot push past its 200 per second", async (t) => {
  const ids: string[] = [];
  for (let s = 0; s < 5; s++) ids.push((await start(server.url, FREE)).body.session_id);
  // Rounds of 50 pushes at once over its 5 sessions (each allows a burst of 400): the account's
  // bucket (a burst of 200, 200 a second) runs out first, however slowly this machine answers.
  let admitted = 0;
  let refusal: JsonAnswer | null = null;
  const began = performance.now();
  for (let round = 0; round < 200 && refusal === null; round++) {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => push(server.url, FREE, ids[i % 5]!, ' ')));
    for (const answer of answers) {
      if (errorCodeOf(answer) === undefined) admitted++;
      else refusal ??= answer;
    }
  }
  const elapsedS = (performance.now() - began) / 1000;
  t.ok(refusal !== null, `refused after ${admitted} pushes in ${elapsedS.toFixed(2)} s`);
  t.ok(admitted <= 200 + 200 * elapsedS + 1, `${admitted} admitted ≤ a burst of 200 + 200/s × ${elapsedS.toFixed(2)} s`);
  t.match(refusal!.body.metadata.errors[0], { code: 'RATE_LIMIT_EXCEEDED', recoverable: true, message: /together push faster than its tier's 200 per second/ });
  const waitMs = Number(refusal!.headers.get('retry-after-ms'));
  t.ok(waitMs > 0 && waitMs <= 1_000, `Retry-After-Ms ${waitMs}: milliseconds, not a second per token`);
  t.equal(refusal!.headers.get('retry-after'), '1', 'Retry-After: whole seconds, at least 1');
});

t.test('one session past its push rate: RATE_LIMIT_EXCEEDED with Retry-After-Ms, nothing added, the session carries on', async (t) => {
  const slow = await startServer(t, { API_KEYS: `${PRO}:pro`, STREAM_PUSH_RATE: '20', STREAM_PUSH_BURST: '10' });
  const id = (await start(slow.url, PRO)).body.session_id;
  const began = performance.now();
  let sent = 0;
  const { answer, admitted } = await untilRefused(() => push(slow.url, PRO, id, String(sent++ % 10)), 2_000);
  const elapsedS = (performance.now() - began) / 1000;
  t.equal(errorCodeOf(answer), 'RATE_LIMIT_EXCEEDED', `refused after ${admitted} pushes in ${elapsedS.toFixed(2)} s`);
  t.ok(admitted >= 10, 'the burst of 10 passes');
  t.ok(admitted <= 10 + 20 * elapsedS + 1, `${admitted} admitted ≤ a burst of 10 + 20/s × ${elapsedS.toFixed(2)} s`);
  t.match(answer.body.metadata.errors[0].message, /This session pushes faster than 20 per second \(bursts of 10\)/);
  const waitMs = Number(answer.headers.get('retry-after-ms'));
  t.ok(waitMs > 0 && waitMs <= 50, `Retry-After-Ms ${waitMs} (one push refills every 50 ms)`);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const again = await push(slow.url, PRO, id, 'x');
  t.equal(errorCodeOf(again), undefined, 'after the wait the push passes');
  t.equal(again.body.state.buffered.length, admitted + 1, 'the refused push added nothing');

  const compact = await postJson(at(slow.url, 'start'), { sessionId: '0b7c6a0e-5b8f-4f8e-9d7e-3a1c2b4d5e6f' }, bearer(PRO));
  t.equal(compact.status, 200);
  const { answer: refused } = await untilRefused(() => postJson(at(slow.url, 'push'), { sessionId: '0b7c6a0e-5b8f-4f8e-9d7e-3a1c2b4d5e6f', content: ' ' }, bearer(PRO)), 2_000);
  t.equal(refused.status, 429, 'compact: HTTP 429');
  t.same(Object.keys(refused.body).sort(), ['error', 'retryAfter']);
});

t.test('pushes and finalizes naming no open session are charged: a key cannot send them past its rate', async (t) => {
  const BOGUS = 'push-rate-bogus-key';
  const other = await startServer(t, { API_KEYS: `${BOGUS}:free` });
  const began = performance.now();
  let n = 0;
  const { answer, admitted } = await untilRefused(async () => {
    const made = n++ % 2 === 0
      ? await push(other.url, BOGUS, `made-up-${n}`, 'x')
      : await postJson(at(other.url, 'finalize'), { session_id: `made-up-${n}` }, bearer(BOGUS));
    // SESSION_NOT_FOUND is the expected answer until the rate is spent: keep going on it.
    return errorCodeOf(made) === 'SESSION_NOT_FOUND' ? { ...made, body: { state: {} } } : made;
  }, 200);
  const elapsedS = (performance.now() - began) / 1000;
  t.equal(errorCodeOf(answer), 'RATE_LIMIT_EXCEEDED', `refused after ${admitted} calls to no session in ${elapsedS.toFixed(2)} s`);
  t.ok(admitted >= 60 && admitted <= 60 + Math.ceil(elapsedS) + 1, `${admitted} answered ≤ the free tier's 60 + one a second`);
  t.match(answer.body.metadata.errors[0].message, /named no open streaming session/);
  t.ok(Number(answer.headers.get('retry-after')) >= 1, 'with Retry-After');
});

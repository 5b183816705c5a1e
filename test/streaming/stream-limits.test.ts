// Lifetimes and limits of streaming sessions, with a short SESSION_TTL_MS and a small
// MAX_PAYLOAD_BYTES so they are quick to reach: inactivity expiry (envelope since the last
// activity, compact since creation), the timer sweep, the chunk limit, the buffer circuit breaker,
// and the MAX_SESSIONS bounds (per account and in total).
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';

const TTL = 600;
const LIMIT = 4096;
const PRO = ['lim-pro-1', 'lim-pro-2', 'lim-pro-3', 'lim-pro-4', 'lim-pro-5'];
const UNLIMITED = 'lim-unlimited';
const server = await startServer(t, {
  API_KEYS: [...PRO.map((k) => `${k}:pro`), `${UNLIMITED}:unlimited`].join(','),
  SESSION_TTL_MS: String(TTL),
  MAX_PAYLOAD_BYTES: String(LIMIT),
  MAX_SESSIONS: '4',
});
const auth = bearer(UNLIMITED);
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
let uuidCounter = 0;
const newUuid = (): string => `00000000-0000-4000-9000-${String(++uuidCounter).padStart(12, '0')}`;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

async function startEnvelope(headers = auth): Promise<{ id: string; expiresAt: number }> {
  const { body } = await postJson(at('start'), {}, headers);
  return { id: body.session_id, expiresAt: body.expires_at };
}

const envelopeCode = (body: any): string | undefined => body.metadata?.errors?.[0]?.code;
const compactCode = (body: any): string | undefined => body.errors?.[0]?.code;

// The server stamps an activity somewhere between sending its request and receiving the answer, so
// a session is certainly alive for a request answered less than TTL after the previous request was
// sent. A busy machine can stretch a gap past that; a session that expired in such a gap is the TTL
// working, not a failure: the attempt starts again (at most three times).
const ATTEMPTS = 3;

t.test('envelope: alive while pushed to, expired TTL after the last activity', async (t) => {
  let id: string | undefined;
  for (let attempt = 1; id === undefined && attempt <= ATTEMPTS; attempt++) {
    const startedAt = Date.now();
    const started = performance.now();
    const opened = await startEnvelope();
    t.ok(opened.expiresAt >= startedAt + TTL && opened.expiresAt <= Date.now() + TTL);
    let previousSent = started;
    let pushes = 0;
    for (; pushes < 5; pushes++) {
      await sleep(TTL / 3);
      const sent = performance.now();
      // (A lone `[` is held until the next character shows it is no `[TOOL_CALLS]` marker: `[0,` is read at once.)
      const { body } = await postJson(at('push'), { session_id: opened.id, chunk: pushes === 0 ? '[0,' : `${pushes},` }, auth);
      const span = performance.now() - previousSent;
      previousSent = sent;
      if (span < TTL || body.state?.brace_depth === 1) {
        t.equal(body.state?.brace_depth, 1, `push ${pushes} at ${(sent - started).toFixed(0)} ms, ${span.toFixed(0)} ms after the previous request`);
        continue;
      }
      t.equal(envelopeCode(body), 'SESSION_NOT_FOUND', `attempt ${attempt}: a ${span.toFixed(0)} ms gap (over the TTL) let it expire; again`);
      break;
    }
    if (pushes < 5) continue;
    t.ok(performance.now() - started > 1.5 * TTL, 'the session outlived its TTL by being used');
    id = opened.id;
  }
  if (id === undefined) return void t.fail(`${ATTEMPTS} attempts each had a gap over the TTL`);
  await sleep(TTL * 2);
  const late = await postJson(at('push'), { session_id: id, chunk: '9]' }, auth);
  t.match(late.body.metadata.errors[0], { code: 'SESSION_NOT_FOUND', severity: 'critical', recoverable: true });
  t.equal(envelopeCode((await postJson(at('finalize'), { session_id: id }, auth)).body), 'SESSION_NOT_FOUND');
});

t.test('compact: expired TTL after creation, whatever the activity', async (t) => {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const id = newUuid();
    const started = Date.now();
    const start = await postJson(at('start'), { sessionId: id }, auth);
    const expires = Date.parse(start.body.expiresAt);
    t.ok(expires >= started + TTL && expires <= Date.now() + TTL, 'expiresAt is creation + TTL');
    await sleep(TTL / 2);
    const push = await postJson(at('push'), { sessionId: id, content: '[1' }, auth);
    // Alive for certain when answered before expiresAt; a push held up past it may find it gone.
    if (Date.now() >= expires && push.body.bufferedBytes !== 2) {
      t.match(push.body, { valid: false, errors: [{ code: 'SESSION_NOT_FOUND' }] }, `attempt ${attempt}: the push reached it after expiresAt; again`);
      continue;
    }
    t.equal(push.body.bufferedBytes, 2, 'alive before expiresAt');
    // An envelope session would now live until TTL after this push; a compact one ends at expiresAt.
    await sleep(Math.max(0, expires - Date.now()) + 50);
    const late = await postJson(at('push'), { sessionId: id, content: ']' }, auth);
    t.match(late.body, { valid: false, errors: [{ code: 'SESSION_NOT_FOUND', recoverable: true }] }, 'activity did not extend it');
    return;
  }
  t.fail(`${ATTEMPTS} attempts each pushed after expiresAt`);
});

t.test('the sweep frees expired sessions without being asked', async (t) => {
  const expiredBefore = await metric('jsonmend_stream_sessions_ended_total{reason="expired"}');
  const started = performance.now();
  await startEnvelope();
  await postJson(at('start'), { sessionId: newUuid() }, auth);
  t.equal(await metric('jsonmend_stream_sessions'), 2);
  // /metrics does not touch a session: only the sweep can free them. Both were opened after
  // `started`, so neither may be gone before TTL from then.
  const ms = await msUntil(20 * TTL, async () => (await metric('jsonmend_stream_sessions')) === 0);
  const elapsed = performance.now() - started;
  t.ok(ms < Infinity, `gone untouched, ${elapsed.toFixed(0)} ms after the starts`);
  t.ok(elapsed >= TTL, 'not before the TTL');
  t.equal(await metric('jsonmend_stream_sessions_ended_total{reason="expired"}'), expiredBefore + 2);
});

t.test('a chunk over MAX_PAYLOAD_BYTES (UTF-8) is refused; the session carries on', async (t) => {
  const { id } = await startEnvelope();
  const euros = '\u20ac'.repeat(Math.floor(LIMIT / 3) + 1); // under LIMIT UTF-16 units, over LIMIT bytes
  t.ok(euros.length < LIMIT && Buffer.byteLength(euros) > LIMIT);
  const big = await postJson(at('push'), { session_id: id, chunk: euros }, auth);
  t.match(big.body.metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', severity: 'critical', recoverable: false, message: new RegExp(`${Buffer.byteLength(euros)} bytes`) });
  const next = await postJson(at('push'), { session_id: id, chunk: '["ok"]' }, auth);
  t.equal(next.body.state.json_parseable, true);
  t.same((await postJson(at('finalize'), { session_id: id }, auth)).body.repaired, ['ok']);
});

t.test('circuit breaker: the push that takes the buffer past the limit terminates the session', async (t) => {
  const { id } = await startEnvelope();
  const half = '"' + 'a'.repeat(LIMIT / 2 - 1);
  t.equal((await postJson(at('push'), { session_id: id, chunk: half }, auth)).body.state.in_string, true);
  const full = await postJson(at('push'), { session_id: id, chunk: 'b'.repeat(LIMIT / 2) }, auth);
  t.equal(full.body.state.in_string, true, 'exactly at the limit is still allowed');
  const over = await postJson(at('push'), { session_id: id, chunk: '"' }, auth);
  t.match(over.body.metadata.errors[0], { code: 'BUFFER_SIZE_EXCEEDED', severity: 'critical', recoverable: false });
  t.equal(envelopeCode((await postJson(at('push'), { session_id: id, chunk: '' }, auth)).body), 'SESSION_NOT_FOUND');
  t.equal(envelopeCode((await postJson(at('finalize'), { session_id: id }, auth)).body), 'SESSION_NOT_FOUND');

  const cid = newUuid();
  await postJson(at('start'), { sessionId: cid }, auth);
  t.equal((await postJson(at('push'), { sessionId: cid, content: '\u00e9'.repeat(LIMIT / 2) }, auth)).body.bufferedBytes, LIMIT);
  const compactOver = await postJson(at('push'), { sessionId: cid, content: 'x' }, auth);
  t.match(compactOver.body, { valid: false, errors: [{ code: 'BUFFER_SIZE_EXCEEDED', recoverable: false }] });
  t.equal(compactCode((await postJson(at('finalize'), { sessionId: cid }, auth)).body), 'SESSION_NOT_FOUND');
  t.ok(await metric('jsonmend_stream_sessions_ended_total{reason="terminated"}') >= 2);
  t.equal(await metric('jsonmend_stream_sessions'), 0);
});

t.test('MAX_SESSIONS: a quarter per account (RATE_LIMIT_EXCEEDED), the total for the server (SERVICE_UNAVAILABLE)', async (t) => {
  const [a, b, c, d, e] = PRO.map(bearer);
  const first = await startEnvelope(a);
  const second = await postJson(at('start'), {}, a);
  t.match(second.body.metadata.errors[0], { code: 'RATE_LIMIT_EXCEEDED', recoverable: true, message: /the most one account may hold on this server/ });
  const others = [await startEnvelope(b), await startEnvelope(c), await startEnvelope(d)];
  const full = await postJson(at('start'), { sessionId: newUuid() }, e);
  t.match(full.body, { valid: false, errors: [{ code: 'SERVICE_UNAVAILABLE', recoverable: true, message: /server/ }] });
  t.equal(compactCode((await postJson(at('start'), { sessionId: newUuid() }, auth)).body), 'SERVICE_UNAVAILABLE', 'the total binds every tier');
  t.equal((await postJson(at('push'), { session_id: first.id, chunk: '[]' }, a)).body.state.json_parseable, true, 'open sessions are unaffected');
  await postJson(at('finalize'), { session_id: first.id }, a);
  const now = await startEnvelope(e);
  t.match(now.id, /^[A-Za-z0-9_-]{22}$/, 'a finalized session frees its place');
  for (const [session, key] of [[others[0]!, b], [others[1]!, c], [others[2]!, d], [now, e]] as const) {
    await postJson(at('finalize'), { session_id: session.id }, key);
  }
  const u1 = await startEnvelope();
  const u2 = await startEnvelope();
  t.ok(u1.id && u2.id, 'the unlimited tier is bounded by the total only');
  for (const s of [u1, u2]) await postJson(at('finalize'), { session_id: s.id }, auth);
  t.equal(await metric('jsonmend_stream_sessions'), 0);
});

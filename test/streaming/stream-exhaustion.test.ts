// Streaming sessions cannot be exhausted by one client: open sessions are bounded per account by
// tier (free 5, whatever the number of keys), the bytes all sessions buffer together are bounded
// by STREAM_BUFFER_BUDGET_BYTES (refused with SERVICE_UNAVAILABLE, recoverable, before memory runs
// out), sign-ups are 2 per IP a day and key creation 10 per account a day. Real server, real HTTP.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { ConsoleClient } from '../web/helpers.js';

const BUDGET = 64 * 1024;
const PRO = 'exhaust-pro-key';
const UNLIMITED = 'exhaust-unlimited-key';
const server = await startServer(t, {
  API_KEYS: `${PRO}:pro,${UNLIMITED}:unlimited`,
  STREAM_BUFFER_BUDGET_BYTES: String(BUDGET),
  TRUST_PROXY: '127.0.0.1,::1',
});
const url = server.url;
const at = (endpoint: string): string => `${url}/v1/repair/stream/${endpoint}`;
const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });
let uuids = 0;
const newUuid = (): string => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`;
const envelopeError = (body: any): any => body.metadata?.errors?.[0];

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

async function consoleUser(ip: string, email: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(url, from(ip));
  await c.start();
  const signup = await c.send('POST', 'signup', { email, password: 'plum kettle orbit 42' });
  t.equal(signup.status, 201, `${email} signed up`);
  return c;
}

t.test('open sessions per account: free 5 across all its keys, RATE_LIMIT_EXCEEDED past it', async (t) => {
  const user = await consoleUser('198.51.100.1', 'streamer@example.com');
  const [a, b] = [(await user.send('POST', 'keys', { name: 'a' })).body.key, (await user.send('POST', 'keys', { name: 'b' })).body.key];
  const ids: Array<[string, string]> = [];
  for (const key of [a, a, a, b, b]) {
    const started = await postJson(at('start'), {}, bearer(key));
    t.type(started.body.session_id, 'string');
    ids.push([started.body.session_id, key]);
  }
  const sixth = await postJson(at('start'), {}, bearer(b));
  t.match(envelopeError(sixth.body), { code: 'RATE_LIMIT_EXCEEDED', recoverable: true, message: /5 open streaming sessions, the most its free tier allows/ });
  t.equal(sixth.headers.get('retry-after'), '60', 'Retry-After: an idle session has expired by then (SESSION_TTL_MS)');
  const compact = await postJson(at('start'), { sessionId: newUuid() }, bearer(a));
  t.equal(compact.status, 429, 'compact: HTTP 429');
  t.equal(compact.body.retryAfter, 60);

  const pro: string[] = [];
  for (let i = 0; i < 8; i++) pro.push((await postJson(at('start'), {}, bearer(PRO))).body.session_id);
  t.ok(pro.every((id) => typeof id === 'string'), 'another account is not affected (pro holds 25)');

  const [id, key] = ids.pop()!;
  t.same((await postJson(at('finalize'), { session_id: id }, bearer(key))).body.success, false, 'finalize of an empty session answers');
  t.type((await postJson(at('start'), {}, bearer(a))).body.session_id, 'string', 'a finalized session frees its place at once');
  for (const s of pro) await postJson(at('finalize'), { session_id: s }, bearer(PRO));
});

t.test('the buffer budget: pushes that would exceed it and starts when it is full are SERVICE_UNAVAILABLE', async (t) => {
  const auth = bearer(UNLIMITED);
  const first = (await postJson(at('start'), {}, auth)).body.session_id;
  const second = (await postJson(at('start'), {}, auth)).body.session_id;
  const before = await metric('jsonmend_stream_buffered_bytes');
  t.equal(await metric('jsonmend_stream_buffer_budget_bytes'), BUDGET);
  t.equal((await postJson(at('push'), { session_id: first, chunk: '"' + 'a'.repeat(39_999) }, auth)).body.state.in_string, true);
  const over = await postJson(at('push'), { session_id: second, chunk: '"' + 'b'.repeat(29_999) }, auth);
  t.match(envelopeError(over.body), { code: 'SERVICE_UNAVAILABLE', recoverable: true, message: /buffered streaming bytes/ });
  const fits = await postJson(at('push'), { session_id: second, chunk: '"' + 'b'.repeat(BUDGET - before - 40_000 - 1) }, auth);
  t.equal(fits.body.state?.in_string, true, 'the refused push added nothing; a smaller one fits, exactly to the budget');
  t.equal(await metric('jsonmend_stream_buffered_bytes'), BUDGET);
  t.equal((await postJson(at('push'), { session_id: second, chunk: '' }, auth)).body.state.in_string, true, 'a push that adds nothing is fine');
  const full = await postJson(at('start'), { sessionId: newUuid() }, auth);
  t.match(full.body, { valid: false, errors: [{ code: 'SERVICE_UNAVAILABLE', recoverable: true }] }, 'no new session while the budget is used up');
  t.same((await postJson(at('finalize'), { session_id: first }, auth)).body.repaired, 'a'.repeat(39_999), 'finalize still works');
  t.equal(await metric('jsonmend_stream_buffered_bytes'), BUDGET - 40_000, 'an ended session gives its bytes back');
  const third = (await postJson(at('start'), {}, auth)).body.session_id;
  t.type(third, 'string', 'starts are accepted again');
  for (const id of [second, third]) await postJson(at('finalize'), { session_id: id }, auth);
  t.equal(await metric('jsonmend_stream_buffered_bytes'), before);
});

t.test('the budget counts what a session holds: a preview of [{},{},… fills it long before its bytes do', async (t) => {
  const auth = bearer(UNLIMITED);
  const before = await metric('jsonmend_stream_buffered_bytes');
  // 1,801 bytes; parsed, about 47 KB; with a progressive preview's second tree, about 93 KB.
  const chunk = '[' + '{},'.repeat(600);
  const progressive = (await postJson(at('start'), { preview: 'progressive' }, auth)).body.session_id;
  const refused = await postJson(at('push'), { session_id: progressive, chunk }, auth);
  t.match(envelopeError(refused.body), { code: 'SERVICE_UNAVAILABLE', recoverable: true }, `${chunk.length} bytes of empty objects with a preview exceed a ${BUDGET}-byte budget`);
  t.equal(await metric('jsonmend_stream_buffered_bytes'), before, 'the refused push added nothing');
  const complete = (await postJson(at('start'), {}, auth)).body.session_id;
  const fits = await postJson(at('push'), { session_id: complete, chunk }, auth);
  t.equal(fits.body.state?.brace_depth, 1, 'without a preview the same chunk fits');
  const held = await metric('jsonmend_stream_buffered_bytes') - before;
  t.ok(held > 20 * chunk.length, `counted ${held} bytes for ${chunk.length} buffered (its parsed value)`);
  for (const id of [progressive, complete]) await postJson(at('finalize'), { session_id: id }, auth);
  t.equal(await metric('jsonmend_stream_buffered_bytes'), before, 'finalized sessions give back all they were counted');
});

t.test('sign-up: 2 accounts per IP a day; keys: 10 made per account a day', async (t) => {
  const ip = '203.0.113.50';
  const first = await consoleUser(ip, 'one@example.com');
  await consoleUser(ip, 'two@example.com');
  const third = new ConsoleClient(url, from(ip));
  await third.start();
  const refused = await third.send('POST', 'signup', { email: 'three@example.com', password: 'plum kettle orbit 42' });
  t.equal(refused.status, 429);
  t.equal(refused.body.error.code, 'TOO_MANY_ATTEMPTS');
  t.ok(Number(refused.headers.get('retry-after')) > 86_000, 'until the day is over');
  await consoleUser('203.0.113.51', 'three@example.com');

  for (let i = 0; i < 10; i++) {
    const made = await first.send('POST', 'keys', { name: `k${i}` });
    t.equal(made.status, 201);
    t.equal((await first.send('POST', 'keys/revoke', { id: made.body.record.id })).status, 200);
  }
  const eleventh = await first.send('POST', 'keys', { name: 'k10' });
  t.equal(eleventh.status, 429);
  t.equal(eleventh.body.error.code, 'KEY_CREATION_LIMIT');
  t.ok(Number(eleventh.headers.get('retry-after')) > 86_000);
});

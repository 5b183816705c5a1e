// The three stream endpoints end to end, on the real server, in both contracts: the state after
// every push agrees with JSON.parse of the prefix, finalize answers what batch repair answers, split
// characters are counted in UTF-8, sessions belong to their key, ids are checked.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'stream-key-a';
const OTHER = 'stream-key-b';
const auth = bearer(KEY);
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited,${OTHER}:unlimited`, WORKERS: '2' });
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
const batch = `${server.url}/v1/repair`;
let uuidCounter = 0;
const newUuid = (): string => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`;

async function startEnvelope(body: object = {}, headers = auth): Promise<string> {
  const answer = await postJson(at('start'), body, headers);
  if (typeof answer.body.session_id !== 'string') throw new Error(`start failed: ${JSON.stringify(answer.body)}`);
  return answer.body.session_id;
}

function parses(text: string): { ok: boolean; value: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: null };
  }
}

const documents = [
  '{"name": "Ada", "tags": ["x", "y"], "n": -12.5e3, "ok": true, "none": null, "nested": {"a": [1, {"b": "c\\"d"}]}}',
  '[1, 22, 333, "four", {"five": 5}, [], {}]',
  '{"unicode": "h\\u00e9llo \u2603 \ud83d\ude00"}',
  '"just a string"',
  '12345',
];

t.test('envelope start: an unguessable id and an expiry in Unix ms', async (t) => {
  const before = Date.now();
  const answers = await Promise.all([0, 1, 2].map(() => postJson(at('start'), {}, auth)));
  const ids = new Set<string>();
  for (const { status, body, headers } of answers) {
    t.equal(status, 200);
    t.ok(headers.get('x-request-id'));
    t.same(Object.keys(body).sort(), ['expires_at', 'session_id']);
    t.match(body.session_id, /^[A-Za-z0-9_-]{22}$/, '16 random bytes, base64url');
    t.ok(body.expires_at >= before + 60_000 - 50 && body.expires_at <= Date.now() + 60_000 + 50, 'start + SESSION_TTL_MS');
    ids.add(body.session_id);
  }
  t.equal(ids.size, 3);
  for (const id of ids) t.equal((await postJson(at('finalize'), { session_id: id }, auth)).body.success, false, 'nothing pushed: nothing to repair');
});

t.test('envelope start with no body at all: every field is optional, so it is {}', async (t) => {
  const started = await fetch(at('start'), { method: 'POST', headers: auth });
  const body = (await started.json()) as { session_id: string; expires_at: number };
  t.match(body, { session_id: String, expires_at: Number });
  const pushed = await postJson(at('push'), { session_id: body.session_id, chunk: '{"a": 1}' }, auth);
  t.equal(pushed.body.state.json_parseable, true);
  const push = await fetch(at('push'), { method: 'POST', headers: auth });
  t.match(await push.json(), { success: false, metadata: { errors: [{ code: 'INVALID_REQUEST' }] } }, 'push still needs its body');
  const final = await postJson(at('finalize'), { session_id: body.session_id }, auth);
  t.same(final.body.repaired, { a: 1 });
});

t.test('envelope: the state after every push matches JSON.parse of the prefix', async (t) => {
  for (const doc of documents) {
    const id = await startEnvelope();
    const step = doc.length > 60 ? 7 : 3;
    let mismatches = 0;
    for (let end = step; end < doc.length + step; end += step) {
      const prefix = doc.slice(0, Math.min(end, doc.length));
      const { body } = await postJson(at('push'), { session_id: id, chunk: doc.slice(end - step, end) }, auth);
      const state = body.state;
      const want = parses(prefix);
      if (state.json_parseable !== want.ok) mismatches++;
      t.same(state.partial, want.ok ? want.value : null);
      t.equal(state.safe_to_emit, state.json_parseable);
      t.equal(state.buffered, prefix);
      t.type(state.brace_depth, 'number');
      t.type(state.in_string, 'boolean');
      t.ok(Array.isArray(state.expected_next));
    }
    t.equal(mismatches, 0, `json_parseable agrees on every prefix of ${doc.slice(0, 24)}`);
    const final = await postJson(at('finalize'), { session_id: id }, auth);
    const reference = await postJson(batch, { raw_output: doc }, auth);
    t.same(final.body, reference.body, 'finalize answers what /v1/repair answers');
  }
});

t.test('envelope: a broken document, its hints, and finalize with a schema and mode', async (t) => {
  const schema = { type: 'object', properties: { qty: { type: 'number' } } };
  const id = await startEnvelope({ schema, mode: 'strict' });
  const first = await postJson(at('push'), { session_id: id, chunk: "```json\n{qty: '3', extra: 1, price: 2." }, auth);
  t.match(first.body.state, { structurally_complete: false, json_parseable: false, partial: null, brace_depth: 1, incomplete_token: '2.' });
  t.same(first.body.state.expected_next, ['token_continuation', ',', '}']);
  const final = await postJson(at('finalize'), { session_id: id }, auth);
  const reference = await postJson(batch, { raw_output: "```json\n{qty: '3', extra: 1, price: 2.", schema, mode: 'strict' }, auth);
  t.same(final.body, reference.body);
  t.same(final.body.repaired, { qty: 3 }, 'coerced, and the undeclared fields removed (strict is the envelope default)');
});

t.test('echo_buffer: false leaves buffered out and changes nothing else', async (t) => {
  const doc = '{"a": [1, 2, {"b": "text"}], "c": true}';
  const echo = await startEnvelope();
  const quiet = await startEnvelope({ echo_buffer: false });
  for (let i = 0; i < doc.length; i += 5) {
    const chunk = doc.slice(i, i + 5);
    const loud = (await postJson(at('push'), { session_id: echo, chunk }, auth)).body.state;
    const silent = (await postJson(at('push'), { session_id: quiet, chunk }, auth)).body.state;
    t.equal(loud.buffered, doc.slice(0, i + chunk.length));
    t.notOk('buffered' in silent, 'no buffered field at all');
    t.same({ ...silent, buffered: loud.buffered }, loud);
  }
  const a = await postJson(at('finalize'), { session_id: echo }, auth);
  const b = await postJson(at('finalize'), { session_id: quiet }, auth);
  t.same(a.body, b.body);
  const bad = await postJson(at('start'), { echo_buffer: 'no' }, auth);
  t.match(bad.body.metadata.errors[0], { code: 'INVALID_REQUEST', message: /echo_buffer/ });
});

t.test('compact: start with the client UUID, push, finalize in the compact batch shape', async (t) => {
  const id = newUuid();
  const before = Date.now();
  const start = await postJson(at('start'), { sessionId: id }, auth);
  t.same(Object.keys(start.body).sort(), ['expiresAt', 'sessionId']);
  t.equal(start.body.sessionId, id);
  const expires = Date.parse(start.body.expiresAt);
  t.match(start.body.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO 8601');
  t.ok(expires >= before + 60_000 - 50 && expires <= Date.now() + 60_000 + 50);
  const doc = "{name: 'Ada', 'tags': ['x',], ok: True}";
  let sent = '';
  for (let i = 0; i < doc.length; i += 6) {
    const content = doc.slice(i, i + 6);
    sent += content;
    const { body } = await postJson(at('push'), { sessionId: id, content }, auth);
    t.same(Object.keys(body).sort(), ['bufferedBytes', 'partial', 'safeToEmit', 'sessionId', 'totalReceived', 'valid']);
    t.equal(body.sessionId, id);
    t.equal(body.valid, parses(sent).ok);
    t.equal(body.safeToEmit, body.valid);
    t.equal(body.bufferedBytes, Buffer.byteLength(sent));
    t.equal(body.totalReceived, Buffer.byteLength(sent));
  }
  const final = await postJson(at('finalize'), { sessionId: id }, auth);
  const reference = await postJson(batch, { content: doc }, auth);
  t.same(final.body, reference.body, 'the compact batch answer, lenient by default');
  t.match(final.body, { valid: true, repaired: '{"name":"Ada","tags":["x"],"ok":true}', repairs: ['quoted_keys', 'converted_single_quotes', 'removed_trailing_comma', 'replaced_python_literal'] });
});

t.test('compact: a valid document pushed whole is valid at once; mode defaults to lenient', async (t) => {
  const id = newUuid();
  const schema = { type: 'object', properties: { a: { type: 'number' } } };
  await postJson(at('start'), { sessionId: id, schema }, auth);
  const push = await postJson(at('push'), { sessionId: id, content: '{"a": "1", "keep": true}' }, auth);
  // The preview is finalize's answer: "1" coerced to 1, a change finalize reports, so not safe to emit as read.
  t.strictSame(push.body, { sessionId: id, valid: true, partial: { a: 1, keep: true }, safeToEmit: false, bufferedBytes: 24, totalReceived: 24 });
  const final = await postJson(at('finalize'), { sessionId: id }, auth);
  t.same(JSON.parse(final.body.repaired), { a: 1, keep: true }, 'coerced; the extra field kept (lenient)');
});

t.test('compact ids: malformed, duplicate, case-insensitive, reusable after finalize', async (t) => {
  for (const sessionId of ['not-a-uuid', '123e4567e89b42d3a456426614174000', 42, '']) {
    const { body } = await postJson(at('start'), { sessionId }, auth);
    t.match(body, { valid: false, errors: [{ code: 'INVALID_REQUEST', severity: 'critical', recoverable: false }] }, JSON.stringify(sessionId));
  }
  const id = newUuid().replace('4000', 'ABCD');
  t.equal((await postJson(at('start'), { sessionId: id }, auth)).body.sessionId, id);
  const dup = await postJson(at('start'), { sessionId: id.toLowerCase() }, auth);
  t.match(dup.body, { valid: false, errors: [{ code: 'INVALID_REQUEST', message: /already open/ }] });
  const other = await postJson(at('start'), { sessionId: id }, bearer(OTHER));
  t.equal(other.body.sessionId, id, 'another key has its own namespace');
  const push = await postJson(at('push'), { sessionId: id.toLowerCase(), content: '[1' }, auth);
  t.equal(push.body.bufferedBytes, 2);
  t.equal((await postJson(at('finalize'), { sessionId: id }, auth)).body.valid, true);
  t.equal((await postJson(at('start'), { sessionId: id }, auth)).body.sessionId, id, 'the id is free again');
  await postJson(at('finalize'), { sessionId: id }, auth);
  await postJson(at('finalize'), { sessionId: id }, bearer(OTHER));
});

t.test('sessions belong to their key; finalize ends them', async (t) => {
  const id = await startEnvelope();
  const stolen = await postJson(at('push'), { session_id: id, chunk: '[1' }, bearer(OTHER));
  t.match(stolen.body, { success: false, metadata: { errors: [{ code: 'SESSION_NOT_FOUND', severity: 'critical', recoverable: true }] } });
  const stolenEnd = await postJson(at('finalize'), { session_id: id }, bearer(OTHER));
  t.equal(stolenEnd.body.metadata.errors[0].code, 'SESSION_NOT_FOUND');
  t.equal((await postJson(at('push'), { session_id: id, chunk: '[1' }, auth)).body.state.brace_depth, 1, 'the owner still has it');
  t.same((await postJson(at('finalize'), { session_id: id }, auth)).body.repaired, [1]);
  const pushAfter = await postJson(at('push'), { session_id: id, chunk: '2]' }, auth);
  t.equal(pushAfter.body.metadata.errors[0].code, 'SESSION_NOT_FOUND', 'push after finalize');
  const finalizeTwice = await postJson(at('finalize'), { session_id: id }, auth);
  t.equal(finalizeTwice.body.metadata.errors[0].code, 'SESSION_NOT_FOUND', 'finalize twice');
  const unknown = await postJson(at('push'), { session_id: 'AAAAAAAAAAAAAAAAAAAAAA', chunk: 'x' }, auth);
  t.equal(unknown.body.metadata.errors[0].code, 'SESSION_NOT_FOUND');
  const compactUnknown = await postJson(at('finalize'), { sessionId: newUuid() }, auth);
  t.match(compactUnknown.body, { valid: false, errors: [{ code: 'SESSION_NOT_FOUND', recoverable: true }] });
});

t.test('a character split across pushes: surrogate escapes, text escapes, raw UTF-8 halves', async (t) => {
  const id = newUuid();
  await postJson(at('start'), { sessionId: id }, auth);
  // The request bodies carry \ud83d and \ude00 as JSON escapes: each chunk holds half a pair.
  const a = await postJson(at('push'), '{"sessionId": "' + id + '", "content": "[\\"\\ud83d"}', auth);
  t.equal(a.body.bufferedBytes, 5, '[ " and a lone high surrogate (3 bytes as UTF-8 would replace it)');
  const b = await postJson(at('push'), '{"sessionId": "' + id + '", "content": "\\ude00\\u00e9\\"]"}', auth);
  t.equal(b.body.bufferedBytes, Buffer.byteLength('["\u{1F600}\u00e9"]'), 'the pair counts 4 bytes once joined');
  t.equal(b.body.totalReceived, b.body.bufferedBytes);
  t.same(b.body.partial, ['\u{1F600}\u00e9']);
  t.equal((await postJson(at('finalize'), { sessionId: id }, auth)).body.repaired, '["\u{1F600}\u00e9"]');

  // The model's own text holds a \u escape, cut inside it.
  const env = await startEnvelope();
  const s1 = await postJson(at('push'), { session_id: env, chunk: '{"e": "\\ud83d\\ud' }, auth);
  t.match(s1.body.state, { in_string: true, json_parseable: false });
  t.match(s1.body.state.incomplete_token, /\\ud$/);
  const s2 = await postJson(at('push'), { session_id: env, chunk: 'e00"}' }, auth);
  t.same(s2.body.state.partial, { e: '\u{1F600}' });
  t.same((await postJson(at('finalize'), { session_id: env }, auth)).body.repaired, { e: '\u{1F600}' });

  // Raw bytes are not characters: halves of a UTF-8 sequence become U+FFFD, as in every body.
  const raw = newUuid();
  await postJson(at('start'), { sessionId: raw }, auth);
  const emoji = Buffer.from('\u{1F600}');
  const send = (bytes: Buffer) => fetch(at('push'), {
    method: 'POST', headers: auth,
    body: Buffer.concat([Buffer.from(`{"sessionId":"${raw}","content":"`), bytes, Buffer.from('"}')]),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
  const h1 = await send(emoji.subarray(0, 2));
  const h2 = await send(emoji.subarray(2));
  const decoded = emoji.subarray(0, 2).toString('utf8') + emoji.subarray(2).toString('utf8');
  t.equal(h2.bufferedBytes, Buffer.byteLength(decoded), 'counted as the replacement characters decoded');
  t.equal(h1.valid, false);
  await postJson(at('finalize'), { sessionId: raw }, auth);
});

t.test('bad requests get INVALID_REQUEST in their contract', async (t) => {
  const envelopeId = await startEnvelope();
  const cases: Array<[string, unknown, RegExp, 'envelope' | 'compact']> = [
    ['push', '{"session_id": ', /not valid JSON/, 'envelope'],
    ['push', [1, 2], /JSON object/, 'envelope'],
    ['push', { chunk: 'x' }, /session_id/, 'envelope'],
    ['push', { session_id: envelopeId }, /chunk/, 'envelope'],
    ['push', { session_id: envelopeId, chunk: 7 }, /chunk/, 'envelope'],
    ['push', { session_id: envelopeId, chunk: 'x', extra: 1 }, /Unknown field "extra"/, 'envelope'],
    ['push', { sessionId: newUuid() }, /content/, 'compact'],
    ['push', { foo: 1 }, /neither contract/, 'envelope'],
    ['start', { mode: 'loose' }, /mode/, 'envelope'],
    ['start', { schema: 'x' }, /schema/, 'envelope'],
    ['start', { schema: { type: 'wat' } }, /Invalid schema/, 'envelope'],
    ['start', { sessionId: newUuid(), schema: { type: 'wat' } }, /Invalid schema/, 'compact'],
    ['start', { sessionId: newUuid(), echo_buffer: false }, /Unknown field/, 'compact'],
    ['finalize', {}, /neither contract/, 'envelope'],
  ];
  for (const [endpoint, body, message, contract] of cases) {
    const answer = await postJson(at(endpoint), body, auth);
    t.equal(answer.status, 200);
    const error = contract === 'envelope' ? answer.body.metadata?.errors[0] : answer.body.errors?.[0];
    t.match(error, { code: 'INVALID_REQUEST', message }, `${endpoint} ${JSON.stringify(body)}`);
  }
  t.equal((await postJson(at('push'), { session_id: envelopeId, chunk: '[]' }, auth)).body.state.json_parseable, true, 'the session survived');
  await postJson(at('finalize'), { session_id: envelopeId }, auth);
});

t.test('a key is required; GET is 405; the demo has no streaming', async (t) => {
  const none = await postJson(at('start'), {});
  t.equal(none.body.metadata.errors[0].code, 'INVALID_API_KEY');
  const bad = await postJson(at('start'), { sessionId: newUuid() }, bearer('nope'));
  t.match(bad.body, { valid: false, errors: [{ code: 'INVALID_API_KEY' }] });
  const get = await fetch(at('push'));
  t.equal(get.status, 405);
  t.equal(get.headers.get('allow'), 'POST');
  t.equal((await fetch(`${server.url}/v1/demo/repair/stream/start`, { method: 'POST', body: '{}' })).status, 404);
});

t.test('metrics count sessions and stream requests', async (t) => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  t.match(text, /^jsonmend_stream_sessions 0$/m, 'every session of this file was finalized');
  t.match(text, /^jsonmend_stream_sessions_ended_total\{reason="finalized"\} [1-9]\d*$/m);
  t.match(text, /^jsonmend_stream_workers 2$/m);
  t.match(text, /^jsonmend_requests_total\{route="stream_push",outcome="ok"\} [1-9]\d*$/m);
});

// POST /v1/repair and /v1/demo/repair against the real server, CONTRACT=auto: both contracts,
// every request error, authentication, and the headers every answer carries.
import t, { type Test } from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';

const KEY = 'test-key-pro-0123456789';
const server = await startServer(t, { API_KEYS: `${KEY}:pro,other-key-free-9876:free`, LOG_LEVEL: 'info' });
const repairUrl = `${server.url}/v1/repair`;
const demoUrl = `${server.url}/v1/demo/repair`;
const auth = bearer(KEY);

function envelopeError(t: Test, body: any, code: string, severity: string, recoverable: boolean): void {
  t.equal(body.success, false);
  t.equal(body.repaired, null);
  t.equal(body.metadata.confidence, 'low');
  t.equal(body.metadata.was_repaired, false);
  t.equal(body.metadata.output_valid_json, false);
  t.equal(body.metadata.errors.length, 1);
  t.match(body.metadata.errors[0], { code, severity, recoverable, message: String });
  t.notOk('compact_code' in body.metadata.errors[0]);
}

function compactError(t: Test, body: any, code: string, severity: string, recoverable: boolean): void {
  t.same(Object.keys(body).sort(), ['confidence', 'errors', 'valid']);
  t.equal(body.valid, false);
  t.equal(body.confidence, 'n/a');
  t.match(body.errors[0], { code, severity, recoverable, message: String });
}

t.test('envelope: valid input comes back unchanged, high confidence', async (t) => {
  const answer = await postJson(repairUrl, { raw_output: '{"a":[1,2,{"b":null}]}' }, auth);
  t.equal(answer.status, 200);
  t.equal(answer.headers.get('content-type'), 'application/json');
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  t.match(answer.headers.get('x-request-id'), /^[A-Za-z0-9._:-]+$/);
  t.same(answer.body, {
    success: true,
    repaired: { a: [1, 2, { b: null }] },
    metadata: {
      confidence: 'high', was_repaired: false, output_valid_json: true,
      syntax_repairs: [], schema_repairs: [], repairs_applied: [], warnings: [], errors: [],
    },
  });
});

t.test('envelope: a truncated object is closed and the repair reported', async (t) => {
  // Cut after a complete value: nothing in it is a guess (cut inside `1` it would warn TRUNCATED_OUTPUT)
  const answer = await postJson(repairUrl, { raw_output: '{"a":[1]' }, auth);
  t.equal(answer.status, 200);
  t.equal(answer.body.success, true);
  t.same(answer.body.repaired, { a: [1] });
  t.equal(answer.body.metadata.was_repaired, true);
  t.equal(answer.body.metadata.confidence, 'high');
  t.same(answer.body.metadata.repairs_applied.map((r: any) => r.type), ['closed_object_bracket']);
  t.match(answer.body.metadata.syntax_repairs[0], { type: 'closed_object_bracket', confidence: 'high', safe: true });
});

t.test('compact: repaired is JSON text, repairs are compact names', async (t) => {
  const answer = await postJson(repairUrl, { content: '```json\n{"a":1}\n```' }, auth);
  t.equal(answer.status, 200);
  t.same(Object.keys(answer.body).sort(), ['confidence', 'repaired', 'repairs', 'valid', 'warnings']);
  t.equal(answer.body.valid, true);
  t.equal(answer.body.repaired, '{"a":1}');
  t.equal(answer.body.confidence, 'high');
  t.same(answer.body.repairs, ['removed_markdown_fence']);
  t.same(answer.body.warnings, []);
});

t.test('compact: quoted_unquoted_keys is reported as quoted_keys', async (t) => {
  const answer = await postJson(repairUrl, { content: '{a: 1}' }, auth);
  t.equal(answer.body.valid, true);
  t.equal(answer.body.repaired, '{"a":1}');
  t.ok(answer.body.repairs.includes('quoted_keys'));
  t.notOk(answer.body.repairs.includes('quoted_unquoted_keys'));
});

t.test('compact: a primitive input keeps its JSON text', async (t) => {
  const answer = await postJson(repairUrl, { content: '"text"', mode: 'strict' }, auth);
  t.equal(answer.body.valid, true);
  t.equal(answer.body.repaired, '"text"');
});

t.test('unrecoverable input: envelope code and compact code', async (t) => {
  const envelope = await postJson(repairUrl, { raw_output: '' }, auth);
  envelopeError(t, envelope.body, 'UNRECOVERABLE_SYNTAX_ERROR', 'critical', false);
  const compact = await postJson(repairUrl, { content: '' }, auth);
  compactError(t, compact.body, 'INVALID_JSON_SYNTAX', 'critical', false);
});

t.test('INVALID_REQUEST in the shape of the contract the body speaks', async (t) => {
  const cases: [unknown, string][] = [
    ['not json at all', 'envelope'],
    ['[1,2,3]', 'envelope'],
    ['"a string"', 'envelope'],
    [{}, 'envelope'],
    [{ schema: {} }, 'envelope'],
    [{ raw_output: 42 }, 'envelope'],
    [{ raw_output: '{}', mode: 'fast' }, 'envelope'],
    [{ raw_output: '{}', schema: 'not a schema' }, 'envelope'],
    [{ raw_output: '{}', shcema: {} }, 'envelope'],
    [{ raw_output: '{}', content: '{}' }, 'envelope'],
    [{ content: null }, 'compact'],
    [{ content: '{}', mode: 'STRICT' }, 'compact'],
    [{ content: '{}', extra: true }, 'compact'],
  ];
  for (const [body, contract] of cases) {
    const answer = await postJson(repairUrl, body, auth);
    t.equal(answer.status, 200, JSON.stringify(body));
    if (contract === 'envelope') envelopeError(t, answer.body, 'INVALID_REQUEST', 'critical', false);
    else compactError(t, answer.body, 'INVALID_REQUEST', 'critical', false);
  }
  const unknown = await postJson(repairUrl, { raw_output: '{}', shcema: {} }, auth);
  t.match(unknown.body.metadata.errors[0].message, /shcema/);
  const mode = await postJson(repairUrl, { raw_output: '{}', mode: 'fast' }, auth);
  t.match(mode.body.metadata.errors[0].message, /strict, lenient/);
  const empty = await fetch(repairUrl, { method: 'POST', headers: auth });
  envelopeError(t, await empty.json(), 'INVALID_REQUEST', 'critical', false);
});

t.test('schema: null means none; an object is accepted', async (t) => {
  const none = await postJson(repairUrl, { raw_output: '{"a":1}', schema: null }, auth);
  t.equal(none.body.success, true);
  const schema = { type: 'object', properties: { a: { type: 'number' } } };
  const withSchema = await postJson(repairUrl, { raw_output: '{"a":1}', schema, mode: 'lenient' }, auth);
  t.equal(withSchema.body.success, true);
  t.same(withSchema.body.repaired, { a: 1 });
});

t.test('INVALID_API_KEY: missing, malformed, unknown, in the body\'s contract', async (t) => {
  const headers: Record<string, string>[] = [
    {},
    { authorization: KEY },
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer ' },
    { authorization: 'Bearer two words' },
    { authorization: 'Bearer not-a-key' },
    { authorization: `Bearer ${KEY}x` },
  ];
  for (const h of headers) {
    const envelope = await postJson(repairUrl, { raw_output: '{}' }, h);
    t.equal(envelope.status, 200);
    envelopeError(t, envelope.body, 'INVALID_API_KEY', 'critical', false);
    t.ok(envelope.headers.get('x-request-id'));
    const compact = await postJson(repairUrl, { content: '{}' }, h);
    t.equal(compact.status, 200);
    compactError(t, compact.body, 'INVALID_API_KEY', 'critical', false);
  }
  const lower = await postJson(repairUrl, { raw_output: '{}' }, { authorization: `bearer ${KEY}` });
  t.equal(lower.body.success, true, 'the scheme is case-insensitive');
  const other = await postJson(repairUrl, { raw_output: '{}' }, bearer('other-key-free-9876'));
  t.equal(other.body.success, true, 'every seeded key works');
});

t.test('the demo needs no key and adds demo: true and a message, in both contracts', async (t) => {
  const envelope = await postJson(demoUrl, { raw_output: '{"a":1', schema: null, mode: 'lenient' });
  t.equal(envelope.status, 200);
  t.equal(envelope.body.demo, true);
  t.match(envelope.body.message, /sign up/i);
  t.equal(envelope.body.success, true);
  t.same(envelope.body.repaired, { a: 1 });
  t.same(envelope.body.metadata.repairs_applied.map((r: any) => r.type), ['closed_object_bracket']);
  const compact = await postJson(demoUrl, { content: '{"a":1' });
  t.equal(compact.body.demo, true);
  t.equal(compact.body.valid, true);
  t.equal(compact.body.repaired, '{"a":1}');
  const bad = await postJson(demoUrl, { raw_output: 5 });
  t.equal(bad.body.demo, true);
  envelopeError(t, bad.body, 'INVALID_REQUEST', 'critical', false);
  const withKey = await postJson(demoUrl, { raw_output: '[]' }, bearer('whatever'));
  t.equal(withKey.body.success, true, 'a key sent to the demo is ignored');
});

t.test('X-Request-ID: a safe caller id is echoed, others are replaced, ids are unique', async (t) => {
  const echoed = await postJson(repairUrl, { raw_output: '{}' }, { ...auth, 'x-request-id': 'trace-123.abc' });
  t.equal(echoed.headers.get('x-request-id'), 'trace-123.abc');
  const replaced = await postJson(repairUrl, { raw_output: '{}' }, { ...auth, 'x-request-id': 'bad id with spaces' });
  t.not(replaced.headers.get('x-request-id'), 'bad id with spaces');
  const ids = new Set<string>();
  await Promise.all(Array.from({ length: 20 }, async () => {
    const answer = await postJson(repairUrl, { raw_output: '{}' }, auth);
    ids.add(answer.headers.get('x-request-id')!);
  }));
  t.equal(ids.size, 20);
});

t.test('no log line carries the input', async (t) => {
  const marker = 'SECRET_MARKER_7f3a9c';
  await postJson(repairUrl, { raw_output: `{"${marker}": 1` }, auth);
  await postJson(repairUrl, { content: `not json ${marker}` }, auth);
  // Logs are flushed once per loop turn and reach this process through a pipe: wait for the lines.
  const logged = (): any[] => server.stdout().trim().split('\n').map((line) => JSON.parse(line));
  await msUntil(10_000, async () => logged().filter((line) => line.msg === 'request' && line.route === 'repair').length >= 2);
  const lines = logged();
  t.ok(lines.filter((line) => line.msg === 'request' && line.route === 'repair').length >= 2, 'request lines are logged');
  t.match(lines.find((line) => line.msg === 'request' && line.route === 'repair'), {
    requestId: String, status: 200, outcome: String, latencyMs: Number, inputBytes: Number, contract: String,
  });
  t.notMatch(server.stdout(), marker);
  t.notMatch(server.stdout(), KEY);
});

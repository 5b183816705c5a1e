// Security properties: keys compared in constant time and never logged; request
// bodies never logged; no prototype pollution through inputs or schemas; JSON answers on every
// route carry Content-Type: application/json and nosniff; errors never show a stack trace.
import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { prototypeTouched } from '../../scripts/fuzz-check.js';
import { runRepairTask, type RepairTaskSettings } from '../../server/batch/repair-task.js';
import { startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { assertJsonAnswer, errorCodeOf, postHead, rawExchange } from './helpers.js';

const KEY = 'sk_live_SecurityTestKeyZ9y8x7w6v5u4t3s2';
const WRONG_KEY = 'sk_live_WrongKeyNeverValidQ1w2e3r4t5y6u7';
const BODY_MARKER = 'BODY-MARKER-7f3a9c-never-in-logs';

t.test('keys are compared with timingSafeEqual on equal-length SHA-256 digests', async (t) => {
  const calls: [number, number][] = [];
  const spy = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
    calls.push([a.byteLength, b.byteLength]);
    return crypto.timingSafeEqual(a, b);
  };
  const mockedCrypto = { ...crypto, timingSafeEqual: spy };
  // The API_KEYS store (accounts/key-store.ts) and the SQLite-backed store of the accounts layer.
  const { MemoryKeyStore } = await t.mockImport<typeof import('../../server/accounts/key-store.js')>('../../server/accounts/key-store.js', { 'node:crypto': mockedCrypto });
  const memory = new MemoryKeyStore([{ key: KEY, tier: 'pro' }]);
  t.ok(memory.lookup(KEY), 'memory store: the right key is found');
  t.equal(memory.lookup(WRONG_KEY), undefined);
  t.same(calls, [[32, 32]], 'memory store: one constant-time comparison of two 32-byte digests');

  calls.length = 0;
  const { CachedKeyStore } = await t.mockImport<typeof import('../../server/accounts/cached-key-store.js')>('../../server/accounts/cached-key-store.js', { 'node:crypto': mockedCrypto });
  const hash = crypto.createHash('sha256').update(KEY).digest('hex');
  const storage = {
    keysVersion: async () => 1,
    loadAllActiveKeys: async () => [{ id: 'key_0123456789abcdef', hash, prefix: 'sk_live_Secu', name: 't', tier: 'pro', userId: null, createdAt: 0, lastUsedAt: null, revokedAt: null }],
  };
  const cached = new CachedKeyStore({ storage: storage as never, clock: { now: () => 0 } });
  await cached.refresh(true);
  t.ok(cached.lookup(KEY), 'accounts store: the right key is found');
  t.equal(cached.lookup(WRONG_KEY), undefined);
  t.same(calls, [[32, 32]], 'accounts store: one constant-time comparison of two 32-byte digests');
});

t.test('code review: no key or digest is compared with === or a string method on the auth path', async (t) => {
  for (const file of ['server/accounts/key-store.ts', 'server/accounts/authenticate.ts', 'server/accounts/cached-key-store.ts']) {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    t.notMatch(source, /(key|digest|hash)\w*\s*[!=]==?\s*\w*(key|digest|hash)|\.(startsWith|includes|localeCompare)\((key|digest|hash)/i, `${file}: no early-exit comparison of secrets`);
    if (/lookup\(key: string\)/.test(source)) t.match(source, /timingSafeEqual\(/, `${file}: lookup ends in timingSafeEqual`);
  }
});

t.test('keys and request bodies never reach the logs, even at debug level and on failures', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, LOG_LEVEL: 'debug', JSONMEND_TEST_HOOKS: '1', TASK_TIMEOUT_MS: '500', DEMO_LIMIT_PER_HOUR: '2' });
  const post = async (path: string, body: string, key?: string): Promise<void> => {
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
    await (await fetch(`${server.url}${path}`, { method: 'POST', headers, body })).text();
  };
  const marked = `{"secret": "${BODY_MARKER}", ${BODY_MARKER}: [1,`;
  await post('/v1/repair', JSON.stringify({ raw_output: marked }), KEY); // success
  await post('/v1/repair', JSON.stringify({ content: marked, mode: 'strict', schema: { type: 'object', required: [BODY_MARKER] } }), KEY); // schema failure
  await post('/v1/repair', JSON.stringify({ raw_output: marked, [BODY_MARKER]: 1 }), KEY); // unknown field named like the marker
  await post('/v1/repair', `{"raw_output": "${BODY_MARKER}`, KEY); // not JSON
  await post('/v1/repair', JSON.stringify({ raw_output: marked }), WRONG_KEY); // unknown key
  await post('/v1/repair', JSON.stringify({ raw_output: marked }), `${WRONG_KEY} extra`); // malformed header
  await post('/v1/repair', JSON.stringify({ raw_output: `${marked} __JSONMEND_TEST_CRASH__`, schema: true }), KEY); // worker crash
  await post('/v1/repair', JSON.stringify({ raw_output: `${marked} __JSONMEND_TEST_SLEEP_MS=2000__`, schema: true }), KEY); // timeout
  for (let i = 0; i < 3; i++) await post('/v1/demo/repair', JSON.stringify({ content: marked }), KEY); // demo, then rate limited
  await post('/v1/repair/stream/start', JSON.stringify({ session_id: BODY_MARKER }), KEY);
  await post('/v1/repair/stream/push', JSON.stringify({ session_id: BODY_MARKER, chunk: marked }), KEY);
  await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${KEY}` } });
  await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${WRONG_KEY}` } });
  // Logs are flushed once per event-loop turn and reach this process through a pipe: wait for the
  // last logged request's line (the key's /v1/usage), and the crash's and the timeout's errors.
  const logs = (): string => server.stdout() + server.stderr();
  await msUntil(10_000, async () => /"msg":"request"[^\n]*"route":"usage"/.test(logs()) && /"level":"error"/.test(logs()));
  const output = logs();
  t.match(output, /"msg":"request"/, 'requests were logged (debug level)');
  t.match(output, /"level":"error"/, 'the crash and the timeout were logged');
  for (const secret of [KEY, WRONG_KEY, KEY.slice(8), WRONG_KEY.slice(8), BODY_MARKER, BODY_MARKER.slice(0, 16)]) {
    t.notOk(output.includes(secret), `"${secret.slice(0, 12)}…" appears nowhere in stdout or stderr`);
  }
});

// Names that would pollute or shadow Object.prototype if a value were assigned instead of defined.
const HOSTILE_INPUTS = [
  '{"__proto__": {"polluted": "yes"}, "a": 1}',
  "{__proto__: {polluted: 'yes'}, constructor: {prototype: {polluted: 'yes'}}, prototype: 1,",
  '{"constructor": {"prototype": {"polluted": "yes"}}}',
  '[{"__proto__": [1, 2]}, {"toString": "x", "hasOwnProperty": 1}',
];
// Written as JSON text: in a JS object literal `__proto__: {...}` would set a prototype, not a member.
const HOSTILE_SCHEMAS: unknown[] = [
  '{"type": "object", "properties": {"__proto__": {"type": "object", "properties": {"polluted": {"type": "string", "default": "yes"}}, "required": ["polluted"]}}, "required": ["__proto__"]}',
  '{"type": "object", "properties": {"constructor": {"type": "object", "properties": {"prototype": {"type": "object", "default": {"polluted": "yes"}}}, "required": ["prototype"]}}, "required": ["constructor"]}',
  '{"type": "object", "__proto__": {"polluted": "yes"}, "properties": {"a": {"type": "string"}}}',
  '{"type": "object", "additionalProperties": false, "properties": {"prototype": {"type": "integer"}}, "required": ["prototype"]}',
].map((text) => JSON.parse(text));
const SETTINGS: RepairTaskSettings = { contract: 'auto', maxPayloadBytes: 5 * 1024 * 1024, demoMessage: 'demo' };

/** Every member name in a value; throws on anything but plain objects and arrays. */
function ownKeysDeep(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (value !== null && typeof value === 'object') {
    if (![Object.prototype, Array.prototype].includes(Object.getPrototypeOf(value))) throw new Error('not plain data');
    for (const key of Object.keys(value)) {
      into.add(key);
      ownKeysDeep((value as Record<string, unknown>)[key], into);
    }
  }
  return into;
}

t.test('__proto__, constructor and prototype in inputs and schemas stay plain data; Object.prototype untouched', async (t) => {
  let checked = 0;
  for (const input of HOSTILE_INPUTS) {
    for (const schema of [undefined, ...HOSTILE_SCHEMAS]) {
      for (const field of ['raw_output', 'content'] as const) {
        const request = schema === undefined ? `{"${field}": ${JSON.stringify(input)}}` : `{"${field}": ${JSON.stringify(input)}, "mode": "lenient", "schema": ${JSON.stringify(schema)}}`;
        const result = runRepairTask({ endpoint: 'repair', body: Buffer.from(request), warnings: null, schemaGate: null }, SETTINGS);
        if (typeof result === 'string') throw new Error('unexpected NEEDS_POOL');
        const answer = JSON.parse(result.body);
        const value = field === 'raw_output' ? answer.repaired : answer.repaired === undefined ? null : JSON.parse(answer.repaired);
        const keys = ownKeysDeep(value);
        if (input.includes('__proto__') && errorCodeOf(answer) === null && schema === undefined) t.ok(keys.has('__proto__'), `__proto__ kept as a member: ${input}`);
        t.equal(prototypeTouched(), null, 'Object.prototype has the same members');
        t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'no inherited "polluted"');
        checked++;
      }
    }
  }
  t.ok(checked === HOSTILE_INPUTS.length * (HOSTILE_SCHEMAS.length + 1) * 2, `${checked} input x schema x contract combinations`);
});

t.test('schema defaults under __proto__ and constructor.prototype are filled in as own members', async (t) => {
  const run = (input: string, schema: unknown): any => {
    const request = JSON.stringify({ raw_output: input, mode: 'lenient', schema });
    const result = runRepairTask({ endpoint: 'repair', body: Buffer.from(request), warnings: null, schemaGate: null }, SETTINGS);
    if (typeof result === 'string') throw new Error('unexpected NEEDS_POOL');
    return JSON.parse(result.body);
  };
  const proto = run('{"__proto__": {}}', HOSTILE_SCHEMAS[0]);
  t.same(proto.metadata.schema_repairs.map((r: any) => `${r.type} ${r.field}`), ['injected_required_field /__proto__/polluted']);
  t.ok(Object.prototype.hasOwnProperty.call(proto.repaired, '__proto__'), '__proto__ is an own member of the answer');
  t.same(proto.repaired['__proto__'], { polluted: 'yes' });
  const ctor = run('{constructor: {}}', HOSTILE_SCHEMAS[1]);
  t.same(ctor.repaired.constructor, { prototype: { polluted: 'yes' } }, 'constructor.prototype filled in as data');
  t.equal(prototypeTouched(), null, 'Object.prototype untouched');
  t.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

t.test('every route answers JSON with nosniff, errors included, and no stack traces', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, JSONMEND_TEST_HOOKS: '1', DEMO_LIMIT_PER_HOUR: '1', TASK_TIMEOUT_MS: '2000' });
  const hostile = await fetch(`${server.url}/v1/repair`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: `{"raw_output": "{\\"__proto__\\": {}}", "mode": "lenient", "schema": ${JSON.stringify(HOSTILE_SCHEMAS[0])}}`,
  });
  // First, while the single worker is fresh (the crash and timeout cases below restart it).
  t.match(await hostile.text(), /"repaired":\{"__proto__":\{"polluted":"yes"\}\}/, 'over HTTP too, __proto__ comes back as data');
  const cases: [string, string, string, Record<string, string>, number | null][] = [
    ['GET', '/health', '', {}, 200],
    ['GET', '/nope', '', {}, 404],
    ['POST', '/nope', '{}', {}, 404],
    ['GET', '/v1/repair', '', {}, 405],
    ['DELETE', '/v1/repair', '', {}, 405],
    ['PUT', '/health', '{}', {}, 405],
    ['POST', '/v1/repair', '{"raw_output": "[1,"}', { authorization: `Bearer ${KEY}` }, 200],
    ['POST', '/v1/repair', '{"raw_output": "[1,"}', {}, 200], // INVALID_API_KEY
    ['POST', '/v1/repair', '{"raw_output": ', { authorization: `Bearer ${KEY}` }, 200], // INVALID_REQUEST
    ['POST', '/v1/repair', '{"raw_output": "x __JSONMEND_TEST_CRASH__", "schema": true}', { authorization: `Bearer ${KEY}` }, 200],
    ['POST', '/v1/repair', '{"content": "x __JSONMEND_TEST_SLEEP_MS=5000__", "schema": true}', { authorization: `Bearer ${KEY}` }, 200],
    ['POST', '/v1/demo/repair', '{"content": "[1,"}', {}, 200],
    ['POST', '/v1/demo/repair', '{"content": "[1,"}', {}, 429], // over DEMO_LIMIT_PER_HOUR=1, compact
    ['POST', '/v1/demo/repair', '{"raw_output": "[1,"}', {}, 200], // over the limit, envelope
    ['GET', '/v1/usage', '', { authorization: `Bearer ${KEY}` }, 200],
    ['GET', '/v1/usage', '', {}, 200],
    ['POST', '/v1/repair/stream/start', '{"bogus": 1}', { authorization: `Bearer ${KEY}` }, null],
    ['POST', '/v1/repair/stream/push', '{"session_id": "nope", "chunk": "x"}', { authorization: `Bearer ${KEY}` }, null],
    ['POST', '/v1/repair/stream/finalize', '{"sessionId": "nope"}', { authorization: `Bearer ${KEY}` }, null],
    ['GET', '/v1/repair/stream/start', '', {}, 405],
  ];
  for (const [method, path, body, headers, status] of cases) {
    const response = await fetch(`${server.url}${path}`, { method, headers, body: method === 'GET' ? undefined : body });
    const text = await response.text();
    const label = `${method} ${path} ${body.slice(0, 40)}`;
    if (status !== null) t.equal(response.status, status, `${label}: status`);
    assertJsonAnswer(t, response.headers, text, label);
  }
  const metrics = await fetch(`${server.url}/metrics`);
  t.match(metrics.headers.get('content-type'), /^text\/plain/, '/metrics is Prometheus text');
  t.equal(metrics.headers.get('x-content-type-options'), 'nosniff', '/metrics: nosniff');
  const tooLarge = await rawExchange(server.url, [postHead('/v1/repair', 90_000_000)], { timeoutMs: 3000, stopAfterBytes: 100 });
  const text = tooLarge.data.toString();
  t.match(text, /Content-Type: application\/json/i, 'a Content-Length refusal: JSON');
  t.match(text, /X-Content-Type-Options: nosniff/i, 'a Content-Length refusal: nosniff');
});

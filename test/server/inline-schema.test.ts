// Small requests with a schema: the HTTP thread repairs them itself once it has the schema compiled,
// and compiles a schema itself only when a client repeats it and a worker measured it cheap
// (server/batch/inline-schema-gate.ts). Proven through /metrics' execution counters.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'inline-schema-test-key';
const auth = bearer(KEY);
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', INLINE_MAX_BYTES: '65536', JSONMEND_TEST_HOOKS: '1' });
const url = `${server.url}/v1/repair`;

async function executions(): Promise<{ inline: number; pool: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const read = (kind: string): number =>
    Number(text.split('\n').find((l) => l.startsWith(`jsonmend_tasks_total{execution="${kind}"} `))?.split(' ')[1] ?? 0);
  return { inline: read('inline'), pool: read('pool') };
}

async function where(body: unknown): Promise<{ ran: string; answer: Record<string, unknown> }> {
  const before = await executions();
  const { body: answer } = await postJson(url, body, auth);
  const after = await executions();
  const ran = after.inline === before.inline + 1 && after.pool === before.pool ? 'inline'
    : after.pool === before.pool + 1 && after.inline === before.inline ? 'pool' : 'unclear';
  return { ran, answer };
}

const ORDER = {
  type: 'object',
  properties: { sku: { type: 'string' }, qty: { type: 'integer' }, status: { enum: ['open', 'shipped'] } },
  required: ['sku', 'qty'],
};

t.test('a repeated cheap schema: the first request in the pool, the next ones inline, the same answer', async (t) => {
  const request = { raw_output: "```json\n{sku: 'A-1', qty: \"3\", status: 'OPEN', note: 'x',", schema: ORDER };
  const first = await where(request);
  t.equal(first.ran, 'pool', 'not compiled on the HTTP thread yet');
  t.same((first.answer as { repaired: unknown }).repaired, { sku: 'A-1', qty: 3, status: 'open' });
  const second = await where(request);
  t.equal(second.ran, 'inline', 'compiled on the HTTP thread after the worker measured it cheap');
  t.same(second.answer, first.answer, 'inline and pool give the same answer');
  // Key order is part of the text a client repeats; the engine's cache also shares reordered schemas.
  const third = await where({ content: '{"sku": "B-2", "qty": 1}', schema: ORDER, mode: 'strict' });
  t.equal(third.ran, 'inline');
  t.equal((third.answer as { valid: boolean }).valid, true);
  // Test hooks exist only in workers: a marker that would stall a worker shows the request stayed inline.
  const marked = await where({ raw_output: '{"sku": "__JSONMEND_TEST_SLEEP_MS=3000__", "qty": 2}', schema: ORDER });
  t.equal(marked.ran, 'inline');
});

t.test('a schema seen once per request (as a hostile client would send) never compiles on the HTTP thread', async (t) => {
  for (let i = 0; i < 3; i++) {
    const { ran } = await where({ raw_output: '{"a": 1}', schema: { type: 'object', title: `unique-${i}` } });
    t.equal(ran, 'pool');
  }
});

t.test('a schema that was expensive to compile stays in the pool, however often it comes', async (t) => {
  // 200 members with patterns: ~100 ms to compile here, far over the 20 ms the HTTP thread accepts.
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) properties[`field_${i}`] = { type: 'string', pattern: `^[a-z]{1,${i + 1}}$`, minLength: 1 };
  const schema = { type: 'object', properties };
  for (let i = 0; i < 3; i++) {
    const { ran, answer } = await where({ raw_output: '{field_1: "ab"}', schema, mode: 'lenient' });
    t.equal(ran, 'pool');
    t.equal((answer as { success: boolean }).success, true);
  }
});

t.test('a repeated invalid schema is answered inline with the same INVALID_REQUEST', async (t) => {
  const request = { raw_output: '{"a": 1}', schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } };
  const first = await where(request);
  const second = await where(request);
  t.equal(first.ran, 'pool');
  t.equal(second.ran, 'inline');
  t.same(second.answer, first.answer);
  t.match(first.answer, { success: false, metadata: { errors: [{ code: 'INVALID_REQUEST' }] } });
});

// Valid JSON of any depth takes the engine's JSON.parse fast path; one too deep for JSON.stringify
// (4,000–6,000 levels) is answered UNRECOVERABLE_SYNTAX_ERROR in the contract's shape, on the HTTP
// thread, in the pool and at a stream's finalize — never INTERNAL_ERROR (server/contracts/render.ts).
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'deep-json-test-key';
const auth = bearer(KEY);
// 16 KiB inline: 6,000 levels (12 KB) are repaired on the HTTP thread, 20,000 (40 KB) in the pool.
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, INLINE_MAX_BYTES: '16384' });
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

function depthOf(value: unknown): number {
  let depth = 0;
  for (let v = value; Array.isArray(v); v = v[0]) depth++;
  return depth;
}

t.test('3,000 levels of valid JSON come back whole', async (t) => {
  const { body } = await postJson(`${server.url}/v1/repair`, { raw_output: nested(3000) }, auth);
  t.equal(body.success, true);
  t.equal(depthOf(body.repaired), 3000);
  t.equal(body.metadata.was_repaired, false);
});

for (const levels of [6000, 20_000]) {
  const where = levels === 6000 ? 'on the HTTP thread' : 'in the pool';
  t.test(`${levels} levels ${where}: UNRECOVERABLE_SYNTAX_ERROR in both contracts`, async (t) => {
    const envelope = await postJson(`${server.url}/v1/repair`, { raw_output: nested(levels) }, auth);
    t.match(envelope.body, {
      success: false, repaired: null,
      metadata: { errors: [{ code: 'UNRECOVERABLE_SYNTAX_ERROR', severity: 'critical', recoverable: false, message: /too deeply/ }] },
    });
    const compact = await postJson(`${server.url}/v1/repair`, { content: nested(levels) }, auth);
    t.match(compact.body, { valid: false, confidence: 'n/a', errors: [{ code: 'INVALID_JSON_SYNTAX', message: /too deeply/ }] });
  });
}

t.test('a stream whose whole buffer is too deep finalizes to the same error', async (t) => {
  const start = await postJson(`${server.url}/v1/repair/stream/start`, { echo_buffer: false }, auth);
  const id = start.body.session_id as string;
  const doc = nested(20_000);
  for (let i = 0; i < doc.length; i += 10_000) {
    await postJson(`${server.url}/v1/repair/stream/push`, { session_id: id, chunk: doc.slice(i, i + 10_000) }, auth);
  }
  const final = await postJson(`${server.url}/v1/repair/stream/finalize`, { session_id: id }, auth);
  t.match(final.body, { success: false, metadata: { errors: [{ code: 'UNRECOVERABLE_SYNTAX_ERROR' }] } });
  const health = await fetch(`${server.url}/health`);
  t.equal(health.status, 200, 'the server carries on');
});

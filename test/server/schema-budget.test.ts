// Over HTTP: 193 tagged objects (about 51 KB) under `items: {anyOf: [five object schemas]}` are
// repaired, not refused with a false SCHEMA_VALIDATION_FAILED at item 192; a budget that truly runs
// out is answered with SCHEMA_WORK_LIMIT_EXCEEDED in both contracts.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { itemsSchema, repairedItem, taggedItems } from '../helpers/tagged-items.js';

const KEY = 'schema-budget-test-key';
const auth = bearer(KEY);
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const url = `${server.url}/v1/repair`;

t.test('193 tagged objects are repaired (envelope, strict)', async (t) => {
  const items = taggedItems(193);
  const { status, body } = await postJson(url, { raw_output: JSON.stringify(items), schema: itemsSchema({ tagged: true }) }, auth);
  t.equal(status, 200);
  t.same(body.metadata.errors, []);
  t.equal(body.success, true);
  t.same(body.repaired, items.map(repairedItem));
});

t.test('2,000 tagged objects are repaired (compact, lenient)', async (t) => {
  const items = taggedItems(2000);
  const { body } = await postJson(url, { content: JSON.stringify(items), schema: itemsSchema({ tagged: true }) }, auth);
  t.equal(body.valid, true, JSON.stringify(body.errors));
  t.same(JSON.parse(body.repaired).at(-1), repairedItem(items.at(-1)!));
});

t.test('a budget that runs out names itself in both contracts', async (t) => {
  const text = JSON.stringify(taggedItems(1000));
  const schema = itemsSchema({ tagged: false, branches: 20 });
  const envelope = (await postJson(url, { raw_output: text, schema, mode: 'lenient' }, auth)).body;
  t.equal(envelope.success, false);
  t.match(envelope.metadata.errors, [{ code: 'SCHEMA_WORK_LIMIT_EXCEEDED', severity: 'high', recoverable: false }]);
  const compact = (await postJson(url, { content: text, schema }, auth)).body;
  t.equal(compact.valid, false);
  t.match(compact.errors, [{ code: 'SCHEMA_WORK_LIMIT_EXCEEDED' }]);
});

t.test('a schema over the complexity budget is refused before it compiles, inline and in the pool alike', async (t) => {
  const schema = { anyOf: Array.from({ length: 800 }, (_, i) => ({ type: 'object', properties: { kind: { const: `k${i}` } }, required: ['kind'] })) };
  const started = performance.now();
  const small = await postJson(url, { raw_output: '{"kind": "k1"}', schema }, auth);
  t.match(small.body, { success: false, metadata: { errors: [{ code: 'SCHEMA_TOO_COMPLEX', field: '/anyOf' }] } });
  const large = await postJson(url, { content: `{"kind": "k1", "pad": "${'x'.repeat(20_000)}"}`, schema }, auth);
  t.match(large.body, { valid: false, errors: [{ code: 'SCHEMA_TOO_COMPLEX' }] });
  t.comment(`both answered in ${(performance.now() - started).toFixed(0)} ms`);
});

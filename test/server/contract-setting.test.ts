// CONTRACT=envelope and CONTRACT=compact: one shape for every answer, whatever the body says.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'contract-test-key-42';
const auth = bearer(KEY);

t.test('CONTRACT=envelope', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, CONTRACT: 'envelope' });
  const url = `${server.url}/v1/repair`;
  const ok = await postJson(url, { raw_output: '{"a":1' }, auth);
  t.same(ok.body.repaired, { a: 1 });
  // A compact body is not guessed at: content is an unknown field, raw_output is missing.
  const compactBody = await postJson(url, { content: '{"a":1}' }, auth);
  t.equal(compactBody.body.success, false);
  t.equal(compactBody.body.metadata.errors[0].code, 'INVALID_REQUEST');
  t.match(compactBody.body.metadata.errors[0].message, /raw_output/);
  const notJson = await postJson(url, '{{', auth);
  t.equal(notJson.body.metadata.errors[0].code, 'INVALID_REQUEST');
  const noKey = await postJson(url, { content: '{}' });
  t.equal(noKey.body.metadata.errors[0].code, 'INVALID_API_KEY');
  const missing = await fetch(`${server.url}/nowhere`);
  t.equal(missing.status, 404);
  t.equal((await missing.json()).metadata.errors[0].code, 'NOT_FOUND');
});

t.test('CONTRACT=compact', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, CONTRACT: 'compact' });
  const url = `${server.url}/v1/repair`;
  const ok = await postJson(url, { content: '{"a":[1]' }, auth);
  t.same(ok.body, { valid: true, repaired: '{"a":[1]}', confidence: 'high', warnings: [], repairs: ['closed_object_bracket'] });
  const cut = await postJson(url, { content: '{"a":"hel' }, auth);
  t.match(cut.body, { valid: true, repaired: '{"a":"hel"}', confidence: 'medium', warnings: [{ code: 'TRUNCATED_OUTPUT' }] });
  const envelopeBody = await postJson(url, { raw_output: '{"a":1}' }, auth);
  t.same(Object.keys(envelopeBody.body).sort(), ['confidence', 'errors', 'valid']);
  t.equal(envelopeBody.body.errors[0].code, 'INVALID_REQUEST');
  const notJson = await postJson(url, 'nope', auth);
  t.match(notJson.body, { valid: false, confidence: 'n/a', errors: [{ code: 'INVALID_REQUEST', severity: 'critical', recoverable: false }] });
  const empty = await postJson(url, {}, auth);
  t.match(empty.body.errors[0], { code: 'INVALID_REQUEST', message: /content/ });
  const noKey = await postJson(url, { raw_output: '{}' });
  t.match(noKey.body, { valid: false, confidence: 'n/a', errors: [{ code: 'INVALID_API_KEY' }] });
  const unrecoverable = await postJson(url, { content: '' }, auth);
  t.equal(unrecoverable.body.errors[0].code, 'INVALID_JSON_SYNTAX');
  const demo = await postJson(`${server.url}/v1/demo/repair`, { content: '[1,' });
  t.match(demo.body, { valid: true, demo: true, message: String });
  const missing = await fetch(`${server.url}/nowhere`, { method: 'POST' });
  t.equal(missing.status, 404);
  t.match(await missing.json(), { valid: false, confidence: 'n/a', errors: [{ code: 'NOT_FOUND' }] });
});

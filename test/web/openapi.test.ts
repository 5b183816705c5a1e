// /openapi.json against the real server: the document is OpenAPI 3.1 whose schemas compile
// strictly (ajv, draft 2020-12), every documented path is mounted, and real answers of both
// contracts (successes, failures, refusals, demo, streaming, usage, health, routing errors) match
// the schema the document gives for their path, method and status. Request bodies sent are
// checked against the document too, and a body the server refuses is refused by the document.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { REQUEST_SCHEMAS } from '../../server/contracts/request-schemas.js';
import { startWebServer } from './helpers.js';

const KEY = 'openapi-test-key-0001';
const { url } = await startWebServer(t, { API_KEYS: `${KEY}:pro`, DEMO_LIMIT_PER_HOUR: '2', TRUST_PROXY: '127.0.0.1,::1' });
const docAnswer = await fetch(`${url}/openapi.json`);
const doc = (await docAnswer.json()) as any;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc, 'openapi');
const compiled = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]): string => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validatorAt(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `openapi#/${ref}` });
    compiled.set(ref, validate);
  }
  return validate;
}

interface Exchange { status: number; headers: Headers; body: unknown; text: string }
let checkedAnswers = 0;

/** Sends a request and checks its body and its answer against the document. */
async function call(
  t: Test, method: 'get' | 'post', path: string, body?: unknown, headers: Record<string, string> = {},
): Promise<Exchange> {
  const operation = doc.paths[path]?.[method];
  t.ok(operation, `${method.toUpperCase()} ${path} is documented`);
  if (body !== undefined) {
    const requestSchema = validatorAt(pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'));
    const fits = requestSchema(body);
    t.ok(fits, 'the request body fits the document', fits ? {} : { errors: ajv.errorsText(requestSchema.errors) });
  }
  const response = await fetch(url + path, {
    method: method.toUpperCase(),
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  const status = String(response.status);
  const documented = operation.responses[status];
  t.ok(documented, `status ${status} is documented for ${method.toUpperCase()} ${path}`);
  const answer = documented.$ref !== undefined ? doc.components.responses[documented.$ref.split('/').pop()] : documented;
  const [mediaType] = Object.keys(answer.content);
  t.equal(response.headers.get('content-type')?.split(';')[0], mediaType, 'the documented media type');
  t.ok(response.headers.get('x-request-id'), 'X-Request-ID on every answer');
  let parsed: unknown = text;
  if (mediaType === 'application/json') {
    parsed = JSON.parse(text);
    const base = documented.$ref !== undefined ? pointer('components', 'responses', documented.$ref.split('/').pop()) : pointer('paths', path, method, 'responses', status);
    const validate = validatorAt(`${base}/${pointer('content', mediaType, 'schema')}`);
    const valid = validate(parsed);
    t.ok(valid, `${method.toUpperCase()} ${path} ${status} matches the document`, valid ? {} : { errors: ajv.errorsText(validate.errors), body: text.slice(0, 600) });
    checkedAnswers++;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const keyed = { authorization: `Bearer ${KEY}` };
const SCHEMA = { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] };

t.test('the document: OpenAPI 3.1, strict schemas, every $ref resolves, served once with an ETag', async (t) => {
  t.equal(doc.openapi, '3.1.0');
  t.equal(docAnswer.headers.get('access-control-allow-origin'), '*');
  t.match(docAnswer.headers.get('etag'), /^"/);
  const strict = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats.default(strict);
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', 'urn:jsonmend:components#/$defs/'));
  strict.addSchema({ $id: 'urn:jsonmend:components', $defs: defs });
  for (const name of Object.keys(defs)) {
    t.doesNotThrow(() => strict.compile({ $ref: `urn:jsonmend:components#/$defs/${name}` }), `${name} compiles in strict mode`);
  }
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
  for (const ref of new Set(refs)) {
    const target = ref.split('/').reduce((node: any, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
    t.ok(target, `#/${ref} resolves`);
  }
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const method of Object.keys(operations)) {
      const answer = await fetch(url + path, { method: method.toUpperCase(), headers: keyed, body: method === 'post' ? '{}' : null });
      t.not(answer.status, 404, `${method.toUpperCase()} ${path} is mounted`);
      t.not(answer.status, 405, `${method.toUpperCase()} ${path} takes ${method.toUpperCase()}`);
      await answer.arrayBuffer();
    }
  }
});

t.test('the document is valid against the OpenAPI 3.1 schema', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  t.equal(validator.version, '3.1');
  t.ok(result.valid, 'valid OpenAPI 3.1', result.valid ? {} : { errors: result.errors });
  const broken = structuredClone(doc);
  broken.paths['/v1/repair'].post.responses = 'none';
  t.notOk((await new Validator().validate(broken)).valid, 'the validator does refuse a broken document');
});

t.test('the request schemas are the ones the server validates with', async (t) => {
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) t.same(doc.components.schemas[name], schema, name);
});

t.test('batch repair, envelope contract', async (t) => {
  const ok = await call(t, 'post', '/v1/repair', { raw_output: "Here:\n```json\n{qty: '3', extra: True,}\n```", schema: SCHEMA, mode: 'strict' }, keyed);
  t.match(ok.body, { success: true, repaired: { qty: 3 }, metadata: { warnings: [{ code: 'EXTRA_FIELD_REMOVED' }] } });
  t.ok(ok.headers.get('x-ratelimit-limit'), 'keyed answers carry X-RateLimit-*');
  t.match((await call(t, 'post', '/v1/repair', { raw_output: 'sorry, no JSON here' }, keyed)).body, { success: false, metadata: { errors: [{ code: 'UNRECOVERABLE_SYNTAX_ERROR' }] } });
  t.match((await call(t, 'post', '/v1/repair', { raw_output: '{"qty": "many"}', schema: SCHEMA }, keyed)).body, { success: false });
  t.match((await call(t, 'post', '/v1/repair', { raw_output: '[1]' })).body, { metadata: { errors: [{ code: 'INVALID_API_KEY' }] } });
  const misspelt = { raw_output: '[1]', shcema: {} };
  const requestSchema = validatorAt(pointer('paths', '/v1/repair', 'post', 'requestBody', 'content', 'application/json', 'schema'));
  t.notOk(requestSchema(misspelt), 'the document refuses an unknown field, as the server does');
  const refused = await fetch(`${url}/v1/repair`, { method: 'POST', headers: keyed, body: JSON.stringify(misspelt) });
  t.match(await refused.json(), { metadata: { errors: [{ code: 'INVALID_REQUEST' }] } });
});

t.test('batch repair, compact contract', async (t) => {
  t.match((await call(t, 'post', '/v1/repair', { content: '{"qty": "3", "x": NaN}', schema: SCHEMA, mode: 'lenient' }, keyed)).body, { valid: true, repaired: '{"qty":3,"x":null}' });
  t.match((await call(t, 'post', '/v1/repair', { content: 'no json' }, keyed)).body, { valid: false, errors: [{ code: 'INVALID_JSON_SYNTAX' }] });
  t.match((await call(t, 'post', '/v1/repair', { content: '[1]' })).body, { valid: false, errors: [{ code: 'INVALID_API_KEY' }] });
});

t.test('the demo, both contracts, and its limit (429 in the compact contract)', async (t) => {
  const ip = (n: number): Record<string, string> => ({ 'x-forwarded-for': `10.8.0.${n}` });
  const demo = await call(t, 'post', '/v1/demo/repair', { raw_output: '[1, 2,' }, ip(1));
  t.match(demo.body, { success: true, demo: true, repaired: [1, 2] });
  t.equal(demo.headers.get('x-ratelimit-remaining'), '1');
  t.match((await call(t, 'post', '/v1/demo/repair', { content: '{a: 1}' }, ip(1))).body, { valid: true, demo: true });
  const limited = await call(t, 'post', '/v1/demo/repair', { content: '{a: 1}' }, ip(1));
  t.equal(limited.status, 429);
  t.match(limited.body, { error: /Demo limit exceeded/, retryAfter: Number });
  t.match((await call(t, 'post', '/v1/demo/repair', { raw_output: '[1]' }, ip(1))).body, { success: false, metadata: { errors: [{ code: 'RATE_LIMIT_EXCEEDED' }] } });
  t.match((await call(t, 'post', '/v1/demo/repair', { content: 'nothing' }, ip(2))).body, { valid: false, demo: true });
});

t.test('streaming, both contracts', async (t) => {
  const started = await call(t, 'post', '/v1/repair/stream/start', { schema: SCHEMA }, keyed);
  const sessionId = (started.body as { session_id: string }).session_id;
  t.type(sessionId, 'string');
  const pushed = await call(t, 'post', '/v1/repair/stream/push', { session_id: sessionId, chunk: '{"qty": "4", "note": tr' }, keyed);
  t.match(pushed.body, { state: { structurally_complete: false } });
  t.match((await call(t, 'post', '/v1/repair/stream/finalize', { session_id: sessionId }, keyed)).body, { success: true, repaired: { qty: 4 } });
  t.match((await call(t, 'post', '/v1/repair/stream/push', { session_id: sessionId, chunk: '1' }, keyed)).body, { metadata: { errors: [{ code: 'SESSION_NOT_FOUND' }] } });

  const uuid = randomUUID();
  t.match((await call(t, 'post', '/v1/repair/stream/start', { sessionId: uuid }, keyed)).body, { sessionId: uuid });
  t.match((await call(t, 'post', '/v1/repair/stream/push', { sessionId: uuid, content: '[1, 2' }, keyed)).body, { sessionId: uuid, valid: false });
  t.match((await call(t, 'post', '/v1/repair/stream/finalize', { sessionId: uuid }, keyed)).body, { valid: true, repaired: '[1,2]' });
  t.match((await call(t, 'post', '/v1/repair/stream/finalize', { sessionId: uuid }, keyed)).body, { valid: false });
});

t.test('usage, health, metrics, routing errors', async (t) => {
  t.match((await call(t, 'get', '/v1/usage', undefined, keyed)).body, { tier: 'pro', quota: 100000 });
  t.match((await call(t, 'get', '/v1/usage')).body, { metadata: { errors: [{ code: 'INVALID_API_KEY' }] } });
  t.match((await call(t, 'get', '/health')).body, { status: 'ok' });
  t.match((await call(t, 'get', '/metrics')).text, /jsonmend_requests_total/);
  t.match((await call(t, 'get', '/openapi.json')).body, { openapi: '3.1.0' });
  const missing = await fetch(`${url}/v2/nothing`);
  const notFound = validatorAt(pointer('components', 'responses', 'NotFound', 'content', 'application/json', 'schema'));
  t.equal(missing.status, 404);
  t.ok(notFound(await missing.json()), 'a 404 matches the NotFound response');
  const wrong = await fetch(`${url}/v1/repair`);
  const notAllowed = validatorAt(pointer('components', 'responses', 'MethodNotAllowed', 'content', 'application/json', 'schema'));
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.get('allow'), 'POST');
  t.ok(notAllowed(await wrong.json()), 'a 405 matches the MethodNotAllowed response');
});

t.test('answers were checked', async (t) => {
  t.ok(checkedAnswers >= 24, `${checkedAnswers} real answers validated against the document`);
});

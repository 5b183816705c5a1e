// Contract detection, the refusal sniffer, request validation and the compact mapping, in process.
import t from 'tap';
import { makeError } from '../../server/contracts/error-codes.js';
import { failureResponse, successResponse } from '../../engine/response.js';
import { compactFailure, toCompact, toCompactError } from '../../server/contracts/compact-mapping.js';
import { detectContract } from '../../server/contracts/contract.js';
import { contractOfSample, sampleOf, sampleOfChunks } from '../../server/contracts/contract-sniffer.js';
import { renderError, renderRepair } from '../../server/contracts/render.js';
import { readBatchRequest } from '../../server/contracts/request-validation.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

t.test('detectContract', async (t) => {
  t.equal(detectContract({ raw_output: '' }, 'auto'), 'envelope');
  t.equal(detectContract({ session_id: 'x' }, 'auto'), 'envelope');
  t.equal(detectContract({ chunk: 'x' }, 'auto'), 'envelope');
  t.equal(detectContract({ content: '' }, 'auto'), 'compact');
  t.equal(detectContract({ sessionId: 'x' }, 'auto'), 'compact');
  t.equal(detectContract({ raw_output: '', content: '' }, 'auto'), 'envelope');
  t.equal(detectContract({ mode: 'strict' }, 'auto'), null);
  t.equal(detectContract([], 'auto'), null);
  t.equal(detectContract(JSON.parse('{"__proto__": {"content": 1}}'), 'auto'), null, 'own fields only');
  t.equal(detectContract({ raw_output: '' }, 'compact'), 'compact');
  t.equal(detectContract('x', 'envelope'), 'envelope');
});

t.test('contractOfSample: exact for small bodies, windows for large ones', async (t) => {
  t.equal(contractOfSample('auto', sampleOf(bytes('{"content":"x"}'), false)), 'compact');
  t.equal(contractOfSample('auto', sampleOf(bytes('{"raw_output":"\\"content\\""}'), false)), 'envelope');
  t.equal(contractOfSample('auto', sampleOf(bytes('{"schema":{"properties":{"raw_output":{}}},"content":"x"}'), false)), 'compact', 'nested names do not count');
  t.equal(contractOfSample('auto', sampleOf(bytes('{"content":"x"'), false)), 'envelope', 'unparsable: envelope');
  t.equal(contractOfSample('auto', null), 'envelope');
  t.equal(contractOfSample('compact', null), 'compact');
  const large = (key: string): Uint8Array => bytes(`{"${key}":"${'x'.repeat(200_000)}","mode":"lenient"}`);
  t.equal(contractOfSample('auto', sampleOf(large('content'), true)), 'compact');
  t.equal(contractOfSample('auto', sampleOf(large('raw_output'), true)), 'envelope');
  t.equal(contractOfSample('auto', sampleOf(large('other'), true)), 'envelope');
  const copied = sampleOf(large('content'), true);
  t.equal(copied.head.buffer.byteLength, 4096, 'windows are copied, not views of the body');
  t.equal(copied.totalBytes, large('content').byteLength);
});

t.test('sampleOfChunks gives the same windows as sampleOf on the whole body', async (t) => {
  const whole = bytes(`{"content":"${'y'.repeat(100_000)}","mode":"strict"}`);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < whole.byteLength; i += 3000) chunks.push(whole.slice(i, i + 3000));
  const fromChunks = sampleOfChunks(chunks, whole.byteLength);
  const fromWhole = sampleOf(whole, true);
  t.same(Buffer.from(fromChunks.head), Buffer.from(fromWhole.head));
  t.same(Buffer.from(fromChunks.tail!), Buffer.from(fromWhole.tail!));
  t.equal(contractOfSample('auto', fromChunks), 'compact');
  const small = bytes('{"content":"x"}');
  t.same(Buffer.from(sampleOfChunks([small.slice(0, 5), small.slice(5)], small.byteLength).head), Buffer.from(small));
});

t.test('readBatchRequest', async (t) => {
  t.same(readBatchRequest({ raw_output: 'x' }, 'envelope'), { input: 'x', schema: undefined, mode: 'strict' });
  t.same(readBatchRequest({ content: 'x' }, 'compact'), { input: 'x', schema: undefined, mode: 'lenient' });
  t.same(readBatchRequest({ content: 'x', mode: 'strict', schema: { type: 'object' } }, 'compact'), { input: 'x', schema: { type: 'object' }, mode: 'strict' });
  t.same(readBatchRequest({ raw_output: 'x', schema: null }, 'envelope'), { input: 'x', schema: undefined, mode: 'strict' });
  t.same(readBatchRequest({ raw_output: 'x', schema: true }, 'envelope'), { input: 'x', schema: true, mode: 'strict' });
  t.equal(readBatchRequest({}, 'envelope'), 'Missing required field "raw_output".');
  t.equal(readBatchRequest({ content: 1 }, 'compact'), '"content" must be a string.');
  t.equal(readBatchRequest({ content: 'x', mode: 'x' }, 'compact'), '"mode" must be one of strict, lenient.');
  t.equal(readBatchRequest({ content: 'x', schema: 3 }, 'compact'), '"schema" must be a JSON Schema (an object, a boolean or null).');
  t.equal(readBatchRequest({ content: 'x', raw_output: 'y' }, 'compact'), 'Unknown field "raw_output".');
  t.equal(readBatchRequest([], 'compact'), 'the request body must be a JSON object.');
});

t.test('compact mapping', async (t) => {
  const detail = (type: string) => ({ type, confidence: 'high' as const, safe: true, count: 2 });
  const response = successResponse({ a: [1, 'é'] }, [detail('quoted_unquoted_keys'), detail('removed_trailing_comma')], [
    { type: 'type_coercion', confidence: 'medium', safe: true, field: '/a', original_value: '1', repaired_value: 1 },
    { type: 'type_coercion', confidence: 'medium', safe: true, field: '/b', original_value: '2', repaired_value: 2 },
  ], [{ code: 'EXTRA_FIELD_REMOVED', message: 'm', severity: 'medium', field: '/z', suggestion: 's' }]);
  const compact = toCompact(response);
  t.same(compact, {
    valid: true,
    repaired: '{"a":[1,"é"]}',
    confidence: 'medium',
    warnings: response.metadata.warnings,
    repairs: ['quoted_keys', 'removed_trailing_comma', 'type_coercion'],
  });
  const rendered = JSON.parse(renderRepair(response, 'compact', null).body);
  t.same(rendered.warnings, [{ code: 'EXTRA_FIELD_REMOVED', message: 'm', severity: 'medium', field: '/z' }]);

  t.same(toCompactError(makeError('UNRECOVERABLE_SYNTAX_ERROR', 'why')), { code: 'INVALID_JSON_SYNTAX', message: 'why', severity: 'critical', recoverable: false });
  t.match(toCompactError(makeError('SCHEMA_VALIDATION_FAILED', 'm', { compact_code: 'TYPE_COERCION_FAILED', field: '/a' })), {
    code: 'TYPE_COERCION_FAILED', severity: 'medium', recoverable: true, field: '/a',
  });
  t.match(toCompactError(makeError('SCHEMA_VALIDATION_FAILED', 'm', { compact_code: 'MISSING_REQUIRED_FIELD' })), { code: 'MISSING_REQUIRED_FIELD', severity: 'high' });
  t.match(toCompactError(makeError('SCHEMA_VALIDATION_FAILED')), { code: 'SCHEMA_VALIDATION_FAILED', severity: 'high', recoverable: false });
  t.match(toCompactError(makeError('INTERNAL_ERROR')), { code: 'UNKNOWN_REPAIR_ERROR', severity: 'critical', recoverable: false });
  t.match(toCompactError(makeError('SERVICE_UNAVAILABLE')), { code: 'SERVICE_UNAVAILABLE', recoverable: true, suggestion: String });
  t.same(compactFailure([makeError('INVALID_REQUEST')]).confidence, 'n/a');
});

t.test('envelope rendering drops compact_code; demo fields; compact 429', async (t) => {
  const failure = failureResponse([makeError('SCHEMA_VALIDATION_FAILED', 'm', { compact_code: 'MISSING_REQUIRED_FIELD' })]);
  const envelope = JSON.parse(renderRepair(failure, 'envelope', null).body);
  t.same(envelope.metadata.errors, [{ code: 'SCHEMA_VALIDATION_FAILED', message: 'm', severity: 'high', recoverable: false }]);
  const demo = JSON.parse(renderRepair(successResponse([], [], [], []), 'envelope', 'hello').body);
  t.match(demo, { success: true, repaired: [], demo: true, message: 'hello' });
  const limited = renderError(makeError('RATE_LIMIT_EXCEEDED'), 'compact', null, 42);
  t.equal(limited.status, 429);
  t.same(JSON.parse(limited.body), { error: 'Rate limit exceeded.', retryAfter: 42 });
  const limitedEnvelope = renderError(makeError('RATE_LIMIT_EXCEEDED'), 'envelope', null, 42);
  t.equal(limitedEnvelope.status, 200);
  t.match(JSON.parse(limitedEnvelope.body).metadata.errors[0], { code: 'RATE_LIMIT_EXCEEDED', severity: 'high', recoverable: true });
});

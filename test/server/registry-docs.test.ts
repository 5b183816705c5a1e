// The docs list every code of the service's registry and every repair kind, and nothing the engine
// lacks; the engine's own registry holds only the codes repair produces, none of the service's.
import { readFileSync } from 'node:fs';
import t from 'tap';
import * as engine from '../../engine/index.js';
import { REPAIR_KINDS } from '../../engine/index.js';
import { ERROR_CODES, WARNING_CODES, makeError, makeWarning } from '../../server/contracts/error-codes.js';

const errorsDoc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const repairsDoc = readFileSync(new URL('../../docs/repairs.md', import.meta.url), 'utf8');

t.test('docs/errors.md lists every error and warning code with its severity', async (t) => {
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    t.match(errorsDoc, new RegExp(`\\| \`${code}\` \\| ${entry.severity} \\| ${entry.recoverable} \\|`), code);
  }
  for (const [code, entry] of Object.entries(WARNING_CODES)) {
    t.match(errorsDoc, new RegExp(`\\| \`${code}\` \\| ${entry.severity} \\|`), code);
  }
});

t.test('docs/repairs.md lists every repair kind with its confidence, and no other', async (t) => {
  for (const [type, kind] of Object.entries(REPAIR_KINDS)) {
    t.match(repairsDoc, new RegExp(`\\| \`${type}\`( \\*added\\*)? \\| ${kind.confidence}`), type);
  }
  const documented = [...repairsDoc.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]);
  t.same(documented.filter((d) => !(d! in REPAIR_KINDS)), [], 'no documented kind is unknown to the engine');
});

t.test('the spec error table is in the registry with its severities', async (t) => {
  const spec: Array<[string, string, boolean]> = [
    ['INVALID_REQUEST', 'critical', false], ['PAYLOAD_TOO_LARGE', 'critical', false],
    ['UNRECOVERABLE_SYNTAX_ERROR', 'critical', false], ['SCHEMA_VALIDATION_FAILED', 'high', false],
    ['SESSION_NOT_FOUND', 'critical', true], ['BUFFER_SIZE_EXCEEDED', 'critical', false],
    ['SERVICE_UNAVAILABLE', 'critical', true], ['INTERNAL_ERROR', 'critical', false],
    ['INVALID_API_KEY', 'critical', false], ['RATE_LIMIT_EXCEEDED', 'high', true],
    ['INVALID_JSON_SYNTAX', 'critical', false], ['MISSING_REQUIRED_FIELD', 'high', false],
    ['TYPE_COERCION_FAILED', 'medium', true], ['UNKNOWN_REPAIR_ERROR', 'critical', false],
  ];
  for (const [code, severity, recoverable] of spec) {
    t.match((ERROR_CODES as Record<string, unknown>)[code], { severity, recoverable }, code);
  }
});

t.test("the engine's registry knows nothing of HTTP; the service's extends it entry for entry", async (t) => {
  for (const code of ['NOT_FOUND', 'METHOD_NOT_ALLOWED', 'INVALID_API_KEY', 'RATE_LIMIT_EXCEEDED', 'PAYLOAD_TOO_LARGE', 'SESSION_NOT_FOUND', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']) {
    t.notOk(Object.hasOwn(engine.ERROR_CODES, code), `${code} is not an engine code`);
    t.ok(Object.hasOwn(ERROR_CODES, code), `${code} is a service code`);
  }
  t.notOk(Object.hasOwn(engine.WARNING_CODES, 'QUOTA_EXCEEDED'), 'QUOTA_EXCEEDED is not an engine warning');
  for (const [code, entry] of Object.entries(engine.ERROR_CODES)) {
    t.equal((ERROR_CODES as Record<string, unknown>)[code], entry, `${code}: the same entry`);
    t.same(makeError(code as keyof typeof engine.ERROR_CODES), engine.makeError(code as keyof typeof engine.ERROR_CODES), `${code}: the same error built`);
  }
  for (const [code, entry] of Object.entries(engine.WARNING_CODES)) {
    t.equal((WARNING_CODES as Record<string, unknown>)[code], entry, `${code}: the same entry`);
  }
  t.same(makeError('NOT_FOUND', undefined, { field: 'f' }), { code: 'NOT_FOUND', message: 'No such endpoint.', severity: 'critical', recoverable: false, field: 'f' });
  t.same(makeWarning('QUOTA_EXCEEDED').suggestion, 'Upgrade the tier or wait for the monthly reset.');
});

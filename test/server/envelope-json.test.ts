// The hand-assembled envelope body (server/contracts/envelope-json.ts) against the one-pass fjs
// serializers it replaces on the request path: byte for byte, over engine answers of every shape.
import t from 'tap';
import { makeError, makeWarning } from '../../server/contracts/error-codes.js';
import { repair } from '../../engine/index.js';
import { REPAIR_KINDS } from '../../engine/repair-kinds.js';
import { failureResponse } from '../../engine/response.js';
import type { RepairResponse } from '../../engine/types.js';
import { envelopeJson } from '../../server/contracts/envelope-json.js';
import { serializeEnvelope, serializeEnvelopeDemo } from '../../server/contracts/serializers.js';
import { addWarnings, countRepairs } from '../../server/contracts/response-metadata.js';

const SCHEMA = {
  type: 'object',
  required: ['name', 'age', 'tags'],
  properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } }, ok: { type: 'boolean' } },
};

function answers(): Array<[string, RepairResponse]> {
  const withWarning = repair("{a: 1,}");
  addWarnings(withWarning, [makeWarning('QUOTA_EXCEEDED')]);
  const reordered = repair("Sure: {a: 'x', b: [1,2,],}");
  reordered.metadata.repairs_applied = [...reordered.metadata.repairs_applied].reverse(); // not the concatenation
  const copied = repair("{a: 'x', b: True}");
  copied.metadata.repairs_applied = copied.metadata.repairs_applied.map((d) => ({ ...d })); // equal, not the same objects
  const odd = repair("{a: 1,}");
  odd.metadata.syntax_repairs = [
    { type: 'not_a_kind "quoted"', confidence: 'high', safe: true, position: 0, count: 1 },
    { type: 'removed_trailing_comma', confidence: 'sure' as never, safe: true },
    { type: 'removed_trailing_comma', confidence: 'low', safe: false, position: 1.5, count: 2 },
    { type: 'removed_trailing_comma', confidence: 'low', safe: true, position: 3, count: -0 },
    { type: 'closed_array_bracket', confidence: 'medium', safe: false, position: 7, count: 3 },
    { type: 'closed_array_bracket', confidence: 'medium', safe: false },
    { type: 'type_coercion', confidence: 'medium', safe: true, field: '/a', original_value: '1', repaired_value: 1 },
    Object.assign({ type: 'removed_comments', confidence: 'high' as const, safe: true }, { toJSON: () => ({ type: 'x', confidence: 'low', safe: false }) }),
  ];
  odd.metadata.repairs_applied = odd.metadata.syntax_repairs.slice();
  return [
    ['details off the common shape', odd],
    ['valid, nothing repaired', repair('{"a": [1, 2.5, "x\\u0000y", null, {"b": false}]}')],
    ['LLM reply', repair("Here you go:\n```json\n{name: 'Ada', tags: ['x',], active: True, // note\n \"n\": 1,")],
    ['schema repairs only', repair('{"name": "Ada", "age": "42", "tags": ["a"], "extra": 1}', { schema: SCHEMA, mode: 'strict' })],
    ['syntax and schema repairs', repair("{name: 'Ada', age: '42', tags: 'solo', extra: 1,}", { schema: SCHEMA, mode: 'strict' })],
    ['schema failure', repair('{"name": 5}', { schema: SCHEMA, mode: 'strict' })],
    ['unrepairable', repair('')],
    ['with an added warning', withWarning],
    ['repairs_applied in another order', reordered],
    ['repairs_applied of copies', copied],
    ['server error', failureResponse([makeError('RATE_LIMIT_EXCEEDED', 'Slow down "now"\n', { suggestion: 'wait' })])],
    ['compact_code stays off the wire', failureResponse([makeError('SCHEMA_VALIDATION_FAILED', 'm', { compact_code: 'MISSING_REQUIRED_FIELD' })])],
  ];
}

t.test('envelopeJson gives exactly the bytes of the one-pass fjs serializers', async (t) => {
  const covered = { both: false, schemaOnly: false, warnings: false, errors: false };
  for (const [name, response] of answers()) {
    const m = response.metadata;
    covered.both ||= m.syntax_repairs.length > 0 && m.schema_repairs.length > 0;
    covered.schemaOnly ||= m.syntax_repairs.length === 0 && m.schema_repairs.length > 0;
    covered.warnings ||= m.warnings.length > 0;
    covered.errors ||= m.errors.length > 0;
    t.equal(envelopeJson(response, null), serializeEnvelope(response), name);
    const message = 'The demo: 10 an hour, "quoted", ünïcode \u2028.';
    t.equal(envelopeJson(response, message), serializeEnvelopeDemo({ ...response, demo: true, message }), `${name} (demo)`);
  }
  t.same(covered, { both: true, schemaOnly: true, warnings: true, errors: true }, 'every list shape was compared');
});

t.test('envelopeJson refuses a response without `repaired`, as fjs does', async (t) => {
  const response = repair('[1]') as RepairResponse & { repaired: unknown };
  response.repaired = undefined;
  t.throws(() => serializeEnvelope(response));
  t.throws(() => envelopeJson(response, null));
});

t.test('countRepairs: one count per type; no repair type can collide with an Object.prototype name', async (t) => {
  const response = repair("{a: 'x', b: 'y', c: True,}");
  const counts = countRepairs(response);
  t.same(counts, { quoted_unquoted_keys: 3, converted_single_quotes: 2, replaced_python_literal: 1, removed_trailing_comma: 1 });
  // The counts are a plain object (fast for the observers that walk it), so a type named like an
  // inherited property would read a function instead of a number.
  for (const type of Object.keys(REPAIR_KINDS)) {
    t.notOk(type in Object.prototype, `${type} is not inherited`);
    t.match(type, /^[a-z][a-z0-9_]*$/, `${type} needs no JSON escaping (envelope-json.ts writes it as is)`);
  }
});

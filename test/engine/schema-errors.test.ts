// What a failure looks like — SCHEMA_VALIDATION_FAILED (high,
// not recoverable), one sentence naming the field, the compact code where it is finer — and
// INVALID_REQUEST with ajv's reason for a schema that does not compile.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

const fail = (value: unknown, schema: unknown) => applySchema(value, schema, 'lenient').errors;

t.test('every uncoercible type and missing member the walk is sure of is listed, in document order', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } }, required: ['sku'] } },
    },
    required: ['id', 'customer'],
  };
  const errors = fail({ id: 'abc', items: [{ qty: 'x', sku: 's' }, { qty: 2 }] }, schema);
  t.strictSame(errors.map((e) => [e.field, e.compact_code]), [
    ['/customer', 'MISSING_REQUIRED_FIELD'],
    ['/id', 'TYPE_COERCION_FAILED'],
    ['/items/0/qty', 'TYPE_COERCION_FAILED'],
    ['/items/1/sku', 'MISSING_REQUIRED_FIELD'],
  ]);
  for (const error of errors) t.match(error, { code: 'SCHEMA_VALIDATION_FAILED', severity: 'high', recoverable: false });
  t.equal(errors[1]!.message, 'Field "/id" must be an integer, but it is the string "abc".');
});

t.test('the root is "The value"; other keywords get their own sentence and no compact code', async (t) => {
  t.strictSame(fail([1], { type: 'object' }).map((e) => [e.field, e.message, e.compact_code]),
    [['', 'The value must be an object, but it is an array of 1 item.', 'TYPE_COERCION_FAILED']]);
  const cases: [unknown, unknown, string, string][] = [
    [{ a: 5 }, { properties: { a: { maximum: 3 } } }, '/a', 'Field "/a" must be <= 3, but it is the integer 5.'],
    [{ a: 'ab' }, { properties: { a: { minLength: 3 } } }, '/a', 'Field "/a" must be at least 3 characters long, but it has 2.'],
    [{ a: [1, 2, 3] }, { properties: { a: { maxItems: 2 } } }, '/a', 'Field "/a" must have at most 2 items, but it has 3.'],
    [{ a: 'x' }, { properties: { a: { pattern: '^[0-9]+$' } } }, '/a', 'Field "/a" must match the pattern "^[0-9]+$", but it is the string "x".'],
    [{ a: 'x' }, { properties: { a: { format: 'email' } } }, '/a', 'Field "/a" must be a valid email, but it is the string "x".'],
    [{ a: 7 }, { properties: { a: { multipleOf: 2 } } }, '/a', 'Field "/a" must be a multiple of 2, but it is the integer 7.'],
    [{ a: [{ b: 1 }, { b: 1 }] }, { properties: { a: { uniqueItems: true } } }, '/a', 'Field "/a" must not contain duplicate items, but items 0 and 1 are equal.'],
    [{ a: 1 }, { properties: { a: false } }, '/a', 'Field "/a" is not allowed here (its schema is false).'],
    [{ a: 's' }, { properties: { a: { not: { type: 'string' } } } }, '/a', 'Field "/a" must not match the schema under "not", but it does (it is the string "s").'],
    [{ a: 3 }, { properties: { a: { oneOf: [{ type: 'integer' }, { minimum: 0 }] } } }, '/a', 'Field "/a" must match exactly one of the alternatives in oneOf, but it matches alternatives 0 and 1.'],
    [{ a: {} }, { properties: { a: { minProperties: 1 } } }, '/a', 'Field "/a" must have at least 1 field, but it has 0.'],
  ];
  for (const [value, schema, field, message] of cases) {
    const errors = fail(value, schema);
    t.strictSame(errors.map((e) => [e.field, e.message, e.compact_code]), [[field, message, undefined]], message);
  }
});

t.test('a failed anyOf is one sentence, not one per branch (also through $ref and recursion)', async (t) => {
  const schema = { definitions: { pos: { type: 'integer', minimum: 0 } }, properties: { x: { anyOf: [{ $ref: '#/definitions/pos' }, { type: 'string', maxLength: 1 }] } } };
  t.strictSame(fail({ x: 'zz' }, schema).map((e) => e.message), ['Field "/x" does not match any of the alternatives in anyOf (it is the string "zz").']);
  const tree = { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#' } }] };
  t.strictSame(fail([[['x']]], tree).map((e) => [e.field, e.message]), [['', 'The value does not match any of the alternatives in anyOf (it is an array of 1 item).']]);
});

t.test('field pointers escape "~" and "/" in member names', async (t) => {
  const errors = fail({ 'a/b': { 'c~d': 'x' } }, { properties: { 'a/b': { properties: { 'c~d': { type: 'integer' } } } } });
  t.strictSame(errors.map((e) => e.field), ['/a~1b/c~0d']);
  t.match(errors[0]!.message, /^Field "\/a~1b\/c~0d" must be an integer/);
});

t.test('long values are shortened in sentences; many failures are capped with a count', async (t) => {
  const errors = fail({ a: 'x'.repeat(500) }, { properties: { a: { type: 'integer' } } });
  t.ok(errors[0]!.message.length < 160, errors[0]!.message);
  const many = fail(Array.from({ length: 30 }, () => 'x'), { type: 'array', items: { type: 'integer' } });
  t.equal(many.length, 21);
  t.equal(many[19]!.field, '/19');
  t.strictSame(many[20], { code: 'SCHEMA_VALIDATION_FAILED', message: '10 more schema violations are not listed.', severity: 'high', recoverable: false });
});

t.test('a schema that is not an object/boolean or does not compile is INVALID_REQUEST with the reason', async (t) => {
  const invalid = (schema: unknown) => {
    const out = applySchema({ a: 1 }, schema, 'strict');
    t.strictSame(out.repairs, []);
    t.equal(out.errors.length, 1);
    t.match(out.errors[0], { code: 'INVALID_REQUEST', severity: 'critical', recoverable: false });
    return out.errors[0]!.message;
  };
  t.equal(invalid('string'), 'Invalid schema: a schema must be a JSON object or a boolean');
  t.equal(invalid([{}]), 'Invalid schema: a schema must be a JSON object or a boolean');
  t.equal(invalid({ type: 'strin' }), 'Invalid schema: schema/type must be equal to one of the allowed values, schema/type must be array, schema/type must match a schema in anyOf');
  t.equal(invalid({ minLength: 'x' }), 'Invalid schema: schema/minLength must be integer');
  t.equal(invalid({ $ref: '#/definitions/missing' }), "Invalid schema: can't resolve reference #/definitions/missing from id #");
  t.equal(invalid({ $ref: 'https://example.com/remote.json' }), "Invalid schema: can't resolve reference https://example.com/remote.json from id #");
  t.match(invalid({ $schema: 'http://json-schema.org/draft-04/schema#' }), /^Invalid schema: unsupported \$schema/);
  t.match(invalid({ properties: { a: { pattern: '([a-z' } } }), /^Invalid schema: pattern "\(\[a-z" is not a valid regular expression/);
});

t.test('no schema (undefined or null) leaves the value alone; true accepts anything, false nothing', async (t) => {
  const value = { a: '1' };
  t.strictSame(applySchema(value, undefined, 'strict'), { value, repairs: [], warnings: [], errors: [] });
  t.strictSame(applySchema(value, null, 'strict'), { value, repairs: [], warnings: [], errors: [] });
  t.strictSame(applySchema(value, true, 'strict').errors, []);
  t.strictSame(applySchema(value, false, 'strict').errors.map((e) => e.message), ['The value is not allowed here (its schema is false).']);
});

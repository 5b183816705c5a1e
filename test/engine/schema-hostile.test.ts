// Hostile schemas get a clear error or a bounded amount of work, never a hang or a crash.
import t from 'tap';
import { applySchema, clearSchemaCache, schemaCacheSize } from '../../engine/schema/index.js';
import { CACHE_MAX_ENTRIES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_TEXT } from '../../engine/schema/limits.js';

const invalid = (schema: unknown): string => {
  const out = applySchema({ a: 1 }, schema, 'strict');
  t.equal(out.errors.length, 1);
  t.equal(out.errors[0]!.code, 'INVALID_REQUEST');
  return out.errors[0]!.message;
};

t.test('catastrophic-backtracking patterns run in linear time (RE2), in pattern and patternProperties', async (t) => {
  // With the native engine each of these would backtrack for longer than the universe has existed.
  const evil = 'a'.repeat(50_000) + '!';
  const pattern = applySchema({ a: evil }, { properties: { a: { pattern: '^(a+)+$' } } }, 'strict');
  t.strictSame(pattern.errors.map((e) => [e.field, e.code]), [['/a', 'SCHEMA_VALIDATION_FAILED']]);
  t.match(pattern.errors[0]!.message, /^Field "\/a" must match the pattern "\^\(a\+\)\+\$", but it is the string "a+…"\.$/);
  const good = applySchema({ a: 'a'.repeat(50_000) }, { properties: { a: { pattern: '^(a+)+$' } } }, 'strict');
  t.strictSame(good.errors, []);
  const keys = applySchema({ [evil]: '1', ok: 1 }, { patternProperties: { '^(a|aa)+$': { type: 'integer' } }, properties: { ok: {} } }, 'strict');
  t.strictSame(keys.repairs.map((r) => r.type), ['removed_extra_field'], 'the evil key does not match, so strict mode removes it');
});

t.test('patterns the linear-time engine cannot run (lookaround, backreferences) are INVALID_REQUEST', async (t) => {
  t.match(invalid({ properties: { a: { pattern: '^(?=.*\\d)' } } }), /^Invalid schema: pattern "\^\(\?=\.\*\\d\)" cannot run on the linear-time engine/);
  t.match(invalid({ properties: { a: { pattern: '(a)\\1' } } }), /backreferences/);
  t.match(invalid({ patternProperties: { '(?<x>a)\\k<x>': {} } }), /backreferences/);
  t.strictSame(applySchema({ a: 'Zürich' }, { properties: { a: { pattern: '^\\p{Lu}\\p{Ll}+$' } } }, 'strict').errors, [], 'unicode classes work');
});

t.test('schemas nested thousands deep are refused before compiling', async (t) => {
  let text = '{"type":"string"}';
  for (let i = 0; i < 5_000; i++) text = `{"type":"object","properties":{"a":${text}}}`;
  t.equal(invalid(JSON.parse(text)), `Invalid schema: schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  t.equal(invalid({ allOf: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) }), `Invalid schema: schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  let ok: unknown = { type: 'integer' };
  for (let i = 0; i < 60; i++) ok = { type: 'object', properties: { a: ok } };
  let value: unknown = '1';
  for (let i = 0; i < 60; i++) value = { a: value };
  const out = applySchema(value, ok, 'strict');
  t.strictSame(out.errors, [], '60 levels of properties (120 of JSON) are fine');
  t.equal(out.repairs[0]!.field, '/a'.repeat(60));
});

t.test('schemas larger than the limit are refused; so are cyclic or non-JSON objects', async (t) => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 20_000; i++) properties[`p${i}`] = { type: 'integer' };
  t.equal(invalid({ properties }), `Invalid schema: schema is larger than ${MAX_SCHEMA_TEXT} characters`);
  const cyclic: Record<string, unknown> = { type: 'object' };
  cyclic.properties = { self: cyclic };
  t.equal(invalid(cyclic), 'Invalid schema: schema is not JSON: Converting circular structure to JSON');
  t.match(invalid({ default: () => 1, type: 'object' }), /^Invalid schema: schema contains a function/);
  t.match(invalid({ minimum: 10n }), /^Invalid schema: schema is not JSON/);
});

t.test('$ref cycles that never descend into the value are refused; recursion that descends works', async (t) => {
  t.equal(invalid({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }),
    'Invalid schema: "#/$defs/a" refers back to itself without descending into the value ($ref cycle)');
  t.match(invalid({ $ref: '#' }), /refers back to itself/);
  t.match(invalid({ allOf: [{ $ref: '#' }] }), /refers back to itself/);
  t.match(invalid({ anyOf: [{ type: 'string' }, { $ref: '#' }] }), /refers back to itself/);
  t.match(invalid({ definitions: { a: { not: { $ref: '#/definitions/a' } } }, properties: { x: { $ref: '#/definitions/a' } } }), /refers back to itself/);
  // A recursive schema: the walk goes exactly as deep as the value, however the $refs loop.
  const schema = { type: 'object', properties: { n: { $ref: '#' }, v: { type: 'integer' } } };
  let value: Record<string, unknown> = { v: '0' };
  for (let i = 1; i <= 50; i++) value = { n: value, v: String(i) };
  const out = applySchema(value, schema, 'strict');
  t.strictSame(out.errors, []);
  t.equal(out.repairs.length, 51);
});

t.test('a union schema whose validation would grow exponentially hits the work budget', async (t) => {
  // Two overlapping anyOf branches recurse through the same $ref: every level doubles the work.
  const defs: Record<string, unknown> = { l0: { type: 'integer' } };
  for (let i = 1; i <= 30; i++) {
    defs[`l${i}`] = { anyOf: [{ type: 'array', items: { $ref: `#/$defs/l${i - 1}` } }, { type: 'array', items: { $ref: `#/$defs/l${i - 1}` }, maxItems: 5 }] };
  }
  let value: unknown = 'x';
  for (let i = 0; i < 30; i++) value = [value];
  const out = applySchema(value, { $defs: defs, $ref: '#/$defs/l30' }, 'strict');
  t.equal(out.errors.length, 1);
  t.match(out.errors[0], { code: 'INVALID_REQUEST' });
  t.match(out.errors[0]!.message, /repeats work without bound/);
});

t.test('uniqueItems is linear: 20,000 objects are checked without pairwise comparison', async (t) => {
  const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] }));
  t.strictSame(applySchema(items, { type: 'array', uniqueItems: true }, 'strict').errors, []);
  items.push({ tags: ['a', 'b'], id: 7 });
  const out = applySchema(items, { type: 'array', uniqueItems: true }, 'strict');
  t.equal(out.errors[0]!.message, 'The value must not contain duplicate items, but items 7 and 20000 are equal.');
  const scalars = applySchema([1, '1', 1.0], { uniqueItems: true }, 'strict');
  t.equal(scalars.errors[0]!.message, 'The value must not contain duplicate items, but items 0 and 2 are equal.');
});

t.test('a value nested deeper than validation can recurse fails cleanly', async (t) => {
  let value: unknown = 1;
  for (let i = 0; i < 100_000; i++) value = [value];
  const out = applySchema(value, { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#' } }] }, 'strict');
  t.strictSame(out.errors.map((e) => [e.code, e.field, e.message]), [
    ['SCHEMA_VALIDATION_FAILED', '', 'The value is nested too deeply to be checked against this schema.'],
  ]);
});

t.test('input keys such as __proto__ are repaired as own members and never reach a prototype', async (t) => {
  const value = JSON.parse('{"__proto__": {"isAdmin": "true"}, "constructor": "1"}');
  const schema = JSON.parse('{"properties": {"__proto__": {"type": "object", "properties": {"isAdmin": {"type": "boolean"}}}, "constructor": {"type": "integer"}}}');
  const out = applySchema(value, schema, 'strict');
  const repaired = out.value as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(repaired), Object.prototype);
  t.strictSame(Object.getOwnPropertyDescriptor(repaired, '__proto__')?.value, { isAdmin: true });
  t.equal(repaired.constructor, 1);
  t.equal(({} as Record<string, unknown>).isAdmin, undefined);
  t.strictSame(out.repairs.map((r) => r.field), ['/__proto__/isAdmin', '/constructor']);
});

t.test('the compile cache stays bounded under a stream of distinct schemas', async (t) => {
  clearSchemaCache();
  for (let i = 0; i < CACHE_MAX_ENTRIES + 40; i++) applySchema({}, { type: 'object', title: `schema ${i}` }, 'strict');
  t.ok(schemaCacheSize() <= CACHE_MAX_ENTRIES, `${schemaCacheSize()} entries`);
});

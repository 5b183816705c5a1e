// Strict mode removes undeclared members at every depth (removed_extra_field plus
// warning EXTRA_FIELD_REMOVED), unless the schema allows them; lenient keeps them.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

const removal = (field: string, original: unknown) => ({
  type: 'removed_extra_field', confidence: 'medium', safe: true, field, original_value: original,
});

const nested = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
    meta: { type: 'object', properties: { source: { type: 'string' } } },
  },
};

t.test('strict removes undeclared members at every depth, one detail and one warning each', async (t) => {
  const value = { id: 1, debug: true, items: [{ sku: 'A', note: 'x' }, { sku: 'B' }], meta: { source: 'llm', 'a/b~c': 1 } };
  const out = applySchema(value, nested, 'strict');
  t.strictSame(out.value, { id: 1, items: [{ sku: 'A' }, { sku: 'B' }], meta: { source: 'llm' } });
  t.strictSame(out.repairs, [removal('/debug', true), removal('/items/0/note', 'x'), removal('/meta/a~1b~0c', 1)]);
  t.strictSame(out.warnings.map((w) => [w.code, w.field, w.severity]), [
    ['EXTRA_FIELD_REMOVED', '/debug', 'medium'], ['EXTRA_FIELD_REMOVED', '/items/0/note', 'medium'],
    ['EXTRA_FIELD_REMOVED', '/meta/a~1b~0c', 'medium'],
  ]);
  t.equal(out.warnings[0]!.message, 'Field "/debug" is not declared by the schema and was removed (strict mode).');
  t.equal(out.warnings[0]!.suggestion, "Use mode 'lenient' to keep undeclared fields.");
  t.strictSame(out.errors, []);
});

t.test('lenient keeps undeclared members and still repairs declared ones', async (t) => {
  const value = { id: '1', debug: true, items: [{ sku: 'A', note: 'x' }], meta: { source: 'llm', extra: 1 } };
  const out = applySchema(value, nested, 'lenient');
  t.strictSame(out.value, { id: 1, debug: true, items: [{ sku: 'A', note: 'x' }], meta: { source: 'llm', extra: 1 } });
  t.strictSame(out.repairs.map((r) => r.type), ['type_coercion']);
  t.strictSame(out.warnings, []);
});

t.test('additionalProperties: true keeps extras in strict mode; a schema keeps and repairs them', async (t) => {
  const open = applySchema({ a: 1, b: 'x' }, { properties: { a: { type: 'integer' } }, additionalProperties: true }, 'strict');
  t.strictSame(open.value, { a: 1, b: 'x' });
  t.strictSame(open.repairs, []);
  const typed = applySchema({ a: 1, b: '2', c: 'x' }, { properties: { a: { type: 'integer' } }, additionalProperties: { type: 'integer' } }, 'strict');
  t.strictSame(typed.value, { a: 1, b: 2, c: 'x' });
  t.strictSame(typed.repairs.map((r) => [r.type, r.field]), [['type_coercion', '/b']]);
  t.strictSame(typed.errors.map((e) => e.field), ['/c']);
});

t.test('patternProperties declare members: matching ones are kept (and repaired), others go in strict', async (t) => {
  const schema = { properties: { name: { type: 'string' } }, patternProperties: { '^x-': { type: 'integer' } } };
  const strict = applySchema({ name: 'n', 'x-count': '3', other: 1 }, schema, 'strict');
  t.strictSame(strict.value, { name: 'n', 'x-count': 3 });
  t.strictSame(strict.repairs.map((r) => [r.type, r.field]), [['removed_extra_field', '/other'], ['type_coercion', '/x-count']]);
  const lenient = applySchema({ name: 'n', 'x-count': '3', other: 1 }, schema, 'lenient');
  t.strictSame(lenient.value, { name: 'n', 'x-count': 3, other: 1 });
});

t.test('additionalProperties: false removes extras in lenient mode too (keeping them could only fail)', async (t) => {
  const out = applySchema({ a: 1, b: 2 }, { properties: { a: { type: 'integer' } }, additionalProperties: false }, 'lenient');
  t.strictSame(out.value, { a: 1 });
  t.strictSame(out.repairs, [removal('/b', 2)]);
  t.match(out.warnings[0], { code: 'EXTRA_FIELD_REMOVED', field: '/b' });
  t.match(out.warnings[0]!.message, /additionalProperties: false/);
  t.strictSame(out.errors, []);
});

t.test('an object schema that declares no members is open; required names count as declared', async (t) => {
  const any = applySchema({ a: 1, b: { c: 2 } }, { type: 'object' }, 'strict');
  t.strictSame(any.value, { a: 1, b: { c: 2 } });
  t.strictSame(any.repairs, []);
  const required = applySchema({ a: 1, b: 2 }, { properties: { a: {} }, required: ['b'] }, 'strict');
  t.strictSame(required.value, { a: 1, b: 2 });
});

t.test('members declared by an unresolved anyOf branch or by if/then are not removed', async (t) => {
  const schema = {
    properties: { kind: { type: 'string' } },
    anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } } }],
    if: { properties: { kind: { const: 'x' } } },
    then: { properties: { c: { type: 'integer' } } },
  };
  const out = applySchema({ kind: 'x', a: 's', b: 't', c: 1, d: 0 }, schema, 'strict');
  t.strictSame(out.value, { kind: 'x', a: 's', b: 't', c: 1 });
  t.strictSame(out.repairs.map((r) => r.field), ['/d']);
});

t.test('the mode defaults to strict for anything but "lenient"', async (t) => {
  const out = applySchema({ a: 1, b: 2 }, { properties: { a: {} } }, 'other' as 'strict');
  t.strictSame(out.value, { a: 1 });
});

// Type coercion, one type_coercion detail (medium, safe) per changed value.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

const coercion = (field: string, original: unknown, repaired: unknown) => ({
  type: 'type_coercion', confidence: 'medium', safe: true, field, original_value: original, repaired_value: repaired,
});

t.test('numeric strings become numbers and integers; each change is one detail with its path', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'number' }, d: { type: 'number' },
      items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } } } },
    },
  };
  const out = applySchema({ a: '42', b: ' 42 ', c: '4.2e1', d: '-0.5', items: [{ qty: '3' }, { qty: 4 }, { qty: '5' }] }, schema, 'strict');
  t.strictSame(out.errors, []);
  t.strictSame(out.value, { a: 42, b: 42, c: 42, d: -0.5, items: [{ qty: 3 }, { qty: 4 }, { qty: 5 }] });
  t.strictSame(out.repairs, [
    coercion('/a', '42', 42), coercion('/b', ' 42 ', 42), coercion('/c', '4.2e1', 42), coercion('/d', '-0.5', -0.5),
    coercion('/items/0/qty', '3', 3), coercion('/items/2/qty', '5', 5),
  ]);
});

t.test('"4.2e1" is an integer, "7.5" and "7.0" follow the number, not the spelling', async (t) => {
  const schema = { properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' } } };
  const out = applySchema({ a: '4.2e1', b: '7.5', c: '7.0' }, schema, 'strict');
  t.strictSame(out.value, { a: 42, b: '7.5', c: 7 });
  t.strictSame(out.repairs.map((r) => r.field), ['/a', '/c']);
  t.equal(out.errors.length, 1);
  t.match(out.errors[0], { code: 'SCHEMA_VALIDATION_FAILED', field: '/b', compact_code: 'TYPE_COERCION_FAILED' });
});

t.test('strings that are not JSON numbers, or would lose digits, stay strings and fail', async (t) => {
  const bad = ['1,5', '1,00', '$', '0x10', '+5', '007', '', ' ', 'NaN', 'Infinity', '1e999', '12345678901234567890', '5 apples'];
  for (const text of bad) {
    const out = applySchema({ n: text }, { properties: { n: { type: 'number' } } }, 'strict');
    t.strictSame(out.repairs, [], `${JSON.stringify(text)} is not coerced`);
    t.equal(out.errors[0]?.compact_code, 'TYPE_COERCION_FAILED', `${JSON.stringify(text)} fails as a type error`);
  }
  const safe = applySchema({ n: '9007199254740991' }, { properties: { n: { type: 'integer' } } }, 'strict');
  t.strictSame(safe.value, { n: 9007199254740991 }, 'the largest safe integer is coerced');
});

t.test('"true"/"false" (any case, trimmed) become booleans; other words do not', async (t) => {
  const schema = { properties: { a: { type: 'boolean' }, b: { type: 'boolean' }, c: { type: 'boolean' }, d: { type: 'boolean' } } };
  const out = applySchema({ a: 'true', b: ' False ', c: 'yes', d: '1' }, schema, 'lenient');
  t.strictSame(out.value, { a: true, b: false, c: 'yes', d: '1' });
  t.strictSame(out.repairs, [coercion('/a', 'true', true), coercion('/b', ' False ', false)]);
  t.strictSame(out.errors.map((e) => e.field), ['/c', '/d']);
});

t.test('numbers and booleans become strings with String()', async (t) => {
  const schema = { properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' } } };
  const out = applySchema({ a: 5, b: 1.5e-7, c: false, d: null }, schema, 'strict');
  t.strictSame(out.value, { a: '5', b: '1.5e-7', c: 'false', d: null });
  t.strictSame(out.repairs, [coercion('/a', 5, '5'), coercion('/b', 1.5e-7, '1.5e-7'), coercion('/c', false, 'false')]);
  t.strictSame(out.errors.map((e) => [e.field, e.compact_code]), [['/d', 'TYPE_COERCION_FAILED']], 'null is never coerced');
});

t.test('an integer beyond ±2^53−1 is not made a string: its digits were lost when it was read', async (t) => {
  const schema = { type: 'object', properties: { tracking: { type: 'string' }, id: { type: 'string' }, ok: { type: 'string' } } };
  const out = applySchema({ tracking: 9400111899223197428490, id: 123456789012345678, ok: 9007199254740991 }, schema, 'strict');
  t.strictSame(out.repairs, [coercion('/ok', 9007199254740991, '9007199254740991')], 'the largest safe integer still is');
  t.strictSame(out.errors.map((e) => [e.code, e.field, e.compact_code]),
    [['SCHEMA_VALIDATION_FAILED', '/tracking', 'TYPE_COERCION_FAILED'], ['SCHEMA_VALIDATION_FAILED', '/id', 'TYPE_COERCION_FAILED']]);
});

t.test('a lone value where an array is wanted becomes its only element, then its items are repaired', async (t) => {
  const schema = { properties: { tags: { type: 'array', items: { type: 'string' } }, ids: { type: 'array', items: { type: 'integer' } } } };
  const out = applySchema({ tags: 'red', ids: '7' }, schema, 'strict');
  t.strictSame(out.value, { tags: ['red'], ids: [7] });
  t.strictSame(out.repairs, [coercion('/tags', 'red', ['red']), coercion('/ids', '7', ['7']), coercion('/ids/0', '7', 7)]);
});

t.test('an object or array written as JSON text in a string is parsed when the schema wants one', async (t) => {
  const schema = {
    properties: {
      address: { type: 'object', properties: { zip: { type: 'string' } } },
      list: { type: 'array' },
      notJson: { type: 'object' },
    },
  };
  const out = applySchema({ address: ' {"zip": 12345} ', list: '[1, 2]', notJson: '{zip: 1}' }, schema, 'strict');
  t.strictSame(out.value, { address: { zip: '12345' }, list: [1, 2], notJson: '{zip: 1}' });
  t.strictSame(out.repairs, [
    coercion('/address', ' {"zip": 12345} ', { zip: 12345 }), coercion('/address/zip', 12345, '12345'),
    coercion('/list', '[1, 2]', [1, 2]),
  ], 'the parse is reported as it was, before the nested coercion changed the member');
  t.equal(out.errors[0]?.field, '/notJson');
});

t.test('type lists: coercion only when exactly one listed type can take the value', async (t) => {
  const schema = {
    properties: {
      a: { type: ['integer', 'null'] }, b: { type: ['integer', 'null'] }, c: { type: ['boolean', 'integer'] },
      d: { type: ['string', 'array'] }, e: { type: 'integer', nullable: true },
    },
  };
  const out = applySchema({ a: '7', b: null, c: 'TRUE', d: 5, e: '8' }, schema, 'strict');
  t.strictSame(out.value, { a: 7, b: null, c: true, d: '5', e: 8 });
  t.strictSame(out.repairs.map((r) => [r.field, r.repaired_value]), [['/a', 7], ['/c', true], ['/d', '5'], ['/e', 8]]);
  t.strictSame(out.errors, []);
});

t.test('without `type`, the types of enum/const members guide coercion', async (t) => {
  const schema = { properties: { level: { enum: [1, 2, 3] }, code: { const: '7' } } };
  const out = applySchema({ level: '2', code: 7 }, schema, 'strict');
  t.strictSame(out.value, { level: 2, code: '7' });
  t.strictSame(out.repairs, [coercion('/level', '2', 2), coercion('/code', 7, '7')]);
});

t.test('a value that cannot be coerced is left alone and reported by validation', async (t) => {
  const out = applySchema({ qty: 'three', tags: [1, {}] }, {
    properties: { qty: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  }, 'strict');
  t.strictSame(out.value, { qty: 'three', tags: ['1', {}] });
  t.strictSame(out.repairs, [coercion('/tags/0', 1, '1')]);
  t.strictSame(out.errors.map((e) => [e.field, e.compact_code, e.message]), [
    ['/qty', 'TYPE_COERCION_FAILED', 'Field "/qty" must be an integer, but it is the string "three".'],
    ['/tags/1', 'TYPE_COERCION_FAILED', 'Field "/tags/1" must be a string, but it is an object.'],
  ]);
});

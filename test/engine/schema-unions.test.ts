// anyOf/oneOf: the branch that fits (as is, else after repair) is used; an ambiguous choice is not guessed.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

t.test('the branch whose type matches is used, and repairs happen inside it', async (t) => {
  const schema = {
    properties: {
      payment: {
        oneOf: [
          { type: 'string', enum: ['cash'] },
          { type: 'object', properties: { card: { type: 'string' }, amount: { type: 'number' } }, required: ['card'] },
        ],
      },
    },
  };
  const out = applySchema({ payment: { card: 1234, amount: '9.99', debug: 1 } }, schema, 'strict');
  t.strictSame(out.value, { payment: { card: '1234', amount: 9.99 } });
  t.strictSame(out.repairs.map((r) => [r.type, r.field]), [
    ['removed_extra_field', '/payment/debug'], ['type_coercion', '/payment/card'], ['type_coercion', '/payment/amount'],
  ]);
  t.strictSame(out.errors, []);
  const cash = applySchema({ payment: 'CASH' }, schema, 'strict');
  t.strictSame(cash.value, { payment: 'cash' });
  t.strictSame(cash.repairs.map((r) => r.type), ['enum_coercion']);
});

t.test('several object branches: the one that accepts the value (discriminated union)', async (t) => {
  const schema = {
    properties: {
      shape: {
        oneOf: [
          { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
          { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
        ],
      },
    },
  };
  const out = applySchema({ shape: { kind: 'square', side: '2', r: 'x' } }, schema, 'strict');
  t.strictSame(out.value, { shape: { kind: 'square', side: 2 } });
  t.strictSame(out.repairs.map((r) => [r.type, r.field]), [['removed_extra_field', '/shape/r'], ['type_coercion', '/shape/side']]);
  t.strictSame(out.errors, []);
});

t.test('no branch takes the type: the one that fits after coercion, needing the fewest changes', async (t) => {
  const schema = { properties: { n: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] }, m: { anyOf: [{ type: 'null' }, { type: 'array', items: { type: 'integer' } }, { type: 'integer' }] } } };
  const out = applySchema({ n: '5', m: '7' }, schema, 'strict');
  t.strictSame(out.value, { n: 5, m: 7 }, '"7" -> 7 (one change) beats "7" -> [7] (two)');
  t.strictSame(out.repairs.map((r) => [r.field, r.original_value, r.repaired_value]), [['/n', '5', 5], ['/m', '7', 7]]);
});

t.test('an ambiguous coercion is not made', async (t) => {
  const tie = applySchema({ v: 1.5 }, { properties: { v: { anyOf: [{ type: 'string' }, { type: 'array' }] } } }, 'strict');
  t.strictSame(tie.value, { v: 1.5 }, '"1.5" and [1.5] each take one change: left alone');
  t.strictSame(tie.repairs, []);
  t.strictSame(tie.errors.map((e) => e.field), ['/v']);
  const fewer = applySchema({ v: true }, { properties: { v: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } }, 'strict');
  t.strictSame(fewer.value, { v: 'true' }, 'the string branch needs one change, the array branch two');
  const none = applySchema({ w: 'y' }, { properties: { w: { oneOf: [{ type: 'integer', minimum: 10 }, { type: 'string', const: 'x' }] } } }, 'strict');
  t.strictSame(none.value, { w: 'y' });
  t.strictSame(none.repairs, []);
  t.strictSame(none.errors.map((e) => e.field), ['/w']);
});

t.test('equal results from several branches are not ambiguous', async (t) => {
  const out = applySchema({ x: '5' }, { properties: { x: { anyOf: [{ type: 'integer' }, { type: 'number' }] } } }, 'strict');
  t.strictSame(out.value, { x: 5 });
});

t.test('nullable unions and type lists keep null, coerce the rest', async (t) => {
  const schema = { properties: { a: { anyOf: [{ type: 'null' }, { type: 'integer' }] }, b: { anyOf: [{ type: 'null' }, { type: 'integer' }] } } };
  const out = applySchema({ a: null, b: '3' }, schema, 'strict');
  t.strictSame(out.value, { a: null, b: 3 });
  t.strictSame(out.repairs.map((r) => r.field), ['/b']);
});

t.test('recursive unions (a tree) are repaired at any depth in linear time', async (t) => {
  const tree = { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#' } }] };
  let value: unknown = '1';
  for (let i = 0; i < 900; i++) value = [value];
  const out = applySchema(value, tree, 'strict');
  t.strictSame(out.errors, []);
  t.equal(out.repairs.length, 1);
  t.equal(out.repairs[0]!.field, '/0'.repeat(900));
  t.equal(out.repairs[0]!.repaired_value, 1);
});

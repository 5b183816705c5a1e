// Drafts chosen by $schema, $ref/$defs/definitions, the bounded compile
// cache keyed by canonical text, and values that already conform left untouched.
import t from 'tap';
import { applySchema, clearSchemaCache, compiledSchema } from '../../engine/schema/index.js';
import { SchemaCache } from '../../engine/schema/schema-cache.js';

t.test('draft-07 (default) and 2020-12 are told apart by $schema', async (t) => {
  const tuple07 = { $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'integer' }, { type: 'string' }], additionalItems: { type: 'boolean' } };
  const out07 = applySchema(['1', 2, 'true'], tuple07, 'strict');
  t.strictSame(out07.value, [1, '2', true]);
  t.strictSame(out07.repairs.map((r) => r.field), ['/0', '/1', '/2']);
  t.strictSame(out07.errors, []);

  const tuple2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'integer' }, { type: 'string' }], items: { type: 'boolean' } };
  const out2020 = applySchema(['1', 2, 'true'], tuple2020, 'strict');
  t.strictSame(out2020.value, [1, '2', true]);
  t.strictSame(out2020.errors, []);

  // In draft-07 prefixItems means nothing, so nothing is coerced and nothing fails.
  const unknownThere = applySchema(['1'], { prefixItems: [{ type: 'integer' }] }, 'strict');
  t.strictSame(unknownThere.value, ['1']);
  t.strictSame(unknownThere.errors, []);

  const dependent2020 = applySchema({ a: 1 }, { $schema: 'https://json-schema.org/draft/2020-12/schema', dependentRequired: { a: ['b'] } }, 'strict');
  t.strictSame(dependent2020.errors.map((e) => [e.field, e.compact_code]), [['/b', 'MISSING_REQUIRED_FIELD']]);
  t.match(dependent2020.errors[0]!.message, /required when "\/a" is present/);
});

t.test('$ref into $defs and definitions, $id/$anchor, and recursion are followed for repairs', async (t) => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.com/order',
    $defs: {
      qty: { type: 'integer', minimum: 1 },
      line: { $anchor: 'line', type: 'object', properties: { qty: { $ref: '#/$defs/qty' }, sub: { type: 'array', items: { $ref: '#line' } } } },
      money: { $id: 'money', type: 'number' },
    },
    type: 'object',
    properties: { lines: { type: 'array', items: { $ref: 'https://example.com/order#line' } }, total: { $ref: 'money' } },
  };
  const out = applySchema({ lines: [{ qty: '2', sub: [{ qty: '3', sub: [] }] }], total: '9.5' }, schema, 'strict');
  t.strictSame(out.errors, []);
  t.strictSame(out.value, { lines: [{ qty: 2, sub: [{ qty: 3, sub: [] }] }], total: 9.5 });
  t.strictSame(out.repairs.map((r) => r.field), ['/lines/0/qty', '/lines/0/sub/0/qty', '/total']);

  const draft07 = { definitions: { id: { type: 'integer' } }, properties: { id: { $ref: '#/definitions/id' } } };
  t.strictSame(applySchema({ id: '5' }, draft07, 'strict').value, { id: 5 });
});

t.test('nested arrays of objects are repaired at every level', async (t) => {
  const schema = {
    type: 'array',
    items: { type: 'object', properties: { rows: { type: 'array', items: { type: 'array', items: { type: 'number' } } } } },
  };
  const out = applySchema([{ rows: [['1', 2], ['3.5']] }, { rows: [[4, '5e-1']] }], schema, 'strict');
  t.strictSame(out.value, [{ rows: [[1, 2], [3.5]] }, { rows: [[4, 0.5]] }]);
  t.strictSame(out.repairs.map((r) => r.field), ['/0/rows/0/0', '/0/rows/1/0', '/1/rows/0/1']);
});

t.test('a value that already conforms is returned as is, with no repairs, warnings or errors', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer' }, name: { type: 'string' }, status: { enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' } },
      choice: { anyOf: [{ type: 'integer' }, { type: 'string' }] }, meta: { type: 'object', additionalProperties: { type: 'number' } },
    },
    required: ['id', 'name'],
    additionalProperties: false,
  };
  const value = { id: 1, name: 'n', status: 'a', tags: ['x'], choice: 'text', meta: { w: 1.5 } };
  const snapshot = JSON.stringify(value);
  const out = applySchema(value, schema, 'strict');
  t.equal(out.value, value, 'the same object');
  t.equal(JSON.stringify(out.value), snapshot, 'unchanged');
  t.strictSame([out.repairs, out.warnings, out.errors], [[], [], []]);
});

t.test("the caller's schema object is never modified", async (t) => {
  const schema = { definitions: { n: { type: 'integer', default: 3 } }, properties: { a: { $ref: '#/definitions/n' }, b: { $ref: '#/definitions/n' } }, required: ['b'] };
  const before = JSON.stringify(schema);
  applySchema({ a: '1' }, schema, 'strict');
  t.equal(JSON.stringify(schema), before);
});

t.test('equal schemas share one compile, whatever their key order; failures are cached too', async (t) => {
  clearSchemaCache();
  const a = compiledSchema({ type: 'object', properties: { x: { type: 'integer', minimum: 0 }, y: { type: 'string' } }, required: ['x'] });
  const b = compiledSchema({ required: ['x'], properties: { y: { type: 'string' }, x: { minimum: 0, type: 'integer' } }, type: 'object' });
  t.ok(a.ok);
  t.equal(a, b, 'one compiled entry');
  t.equal(compiledSchema(JSON.parse(JSON.stringify({ type: 'object', properties: { x: { type: 'integer', minimum: 0 }, y: { type: 'string' } }, required: ['x'] }))), a, 'a new object with equal text hits the cache');
  t.not(compiledSchema({ required: ['y'], properties: {} }), a, 'a different schema is a different entry');
  const bad = compiledSchema({ type: 'nope' });
  t.notOk(bad.ok);
  t.equal(compiledSchema({ type: 'nope' }), bad, 'the failed compile is cached');
});

t.test('the cache is a bounded LRU, by entries and by total key text', async (t) => {
  const byCount = new SchemaCache<number>(3, 1_000);
  for (const key of ['a', 'b', 'c']) byCount.set(key, key.charCodeAt(0));
  t.equal(byCount.get('a'), 97, 'a is now the most recently used');
  byCount.set('d', 100);
  t.equal(byCount.size, 3);
  t.equal(byCount.get('b'), undefined, 'b was the least recently used');
  t.equal(byCount.get('a'), 97);
  const byText = new SchemaCache<number>(100, 10);
  byText.set('xxxx', 1);
  byText.set('yyyy', 2);
  byText.set('zzzz', 3);
  t.equal(byText.size, 2);
  t.equal(byText.get('xxxx'), undefined);
  byText.set('w'.repeat(11), 4);
  t.equal(byText.get('w'.repeat(11)), undefined, 'an entry larger than the whole budget is not kept');
});

t.test('a $id used by one schema cannot be reached from another (each compile is isolated)', async (t) => {
  applySchema({}, { $id: 'https://example.com/shared', type: 'object' }, 'strict');
  const other = applySchema({}, { $ref: 'https://example.com/shared' }, 'strict');
  t.match(other.errors[0], { code: 'INVALID_REQUEST' });
  const again = applySchema({}, { $id: 'https://example.com/shared', type: 'object', title: 'another' }, 'strict');
  t.strictSame(again.errors, [], 'reusing the $id in a different schema is fine');
});

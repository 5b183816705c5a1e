// The complexity budget a schema must fit before anything compiles it (server/contracts/schema-complexity.ts).
import t from 'tap';
import {
  MAX_SCHEMA_CONTAINERS, MAX_SCHEMA_MEMBERS, MAX_SCHEMA_UNION_MEMBERS, schemaComplexityError,
} from '../../server/contracts/schema-complexity.js';

const branches = (n: number): object[] => Array.from({ length: n }, (_, i) => ({ type: 'object', properties: { k: { const: i } } }));

t.test('ordinary schemas fit; booleans and non-objects are not its business', async (t) => {
  t.equal(schemaComplexityError({ type: 'object', properties: { a: { anyOf: branches(8) } } }), null);
  t.equal(schemaComplexityError(true), null);
  t.equal(schemaComplexityError('x'), null);
});

t.test('anyOf/oneOf members are counted over the whole schema, at the limit and one past it', async (t) => {
  const half = MAX_SCHEMA_UNION_MEMBERS / 2;
  t.equal(schemaComplexityError({ properties: { a: { anyOf: branches(half) }, b: { oneOf: branches(half) } } }), null, 'exactly the limit');
  const over = schemaComplexityError({ properties: { a: { anyOf: branches(half) }, b: { oneOf: branches(half + 1) } } });
  t.match(over, { code: 'SCHEMA_TOO_COMPLEX', severity: 'critical', recoverable: false, message: /more than 128 anyOf\/oneOf members/ });
  t.match(over!.field, /^\/properties\/(a\/anyOf|b\/oneOf)$/, 'the union where the count went over');
  t.match(schemaComplexityError({ properties: { 'b/c~': { oneOf: branches(MAX_SCHEMA_UNION_MEMBERS + 1) } } }), { field: '/properties/b~1c~0/oneOf' }, 'a JSON Pointer');
});

t.test('members of one object, and objects and arrays in all', async (t) => {
  const wide = (n: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])) });
  t.equal(schemaComplexityError(wide(MAX_SCHEMA_MEMBERS)), null);
  t.match(schemaComplexityError(wide(MAX_SCHEMA_MEMBERS + 1)), { code: 'SCHEMA_TOO_COMPLEX', field: '/properties' });
  const many = { $defs: Object.fromEntries(Array.from({ length: 4 }, (_, d) => [`d${d}`, wide(MAX_SCHEMA_CONTAINERS / 4)])) };
  t.match(schemaComplexityError(many), { code: 'SCHEMA_TOO_COMPLEX', message: /more than 2000 objects and arrays/ });
});

t.test('nesting of any depth is walked without recursion; past the depth limit the engine answers', async (t) => {
  let deep: unknown = {};
  for (let i = 0; i < 100_000; i++) deep = [deep];
  t.equal(schemaComplexityError({ enum: deep }), null, 'left to the INVALID_REQUEST "nested deeper than 128 levels"');
  const wideAndDeep = { $defs: Object.fromEntries(Array.from({ length: 30 }, (_, d) => [`d${d}`, { items: Array.from({ length: 100 }, () => ({})) }])) };
  t.match(schemaComplexityError(wideAndDeep), { code: 'SCHEMA_TOO_COMPLEX' }, 'within the depth limit the container bound holds');
});

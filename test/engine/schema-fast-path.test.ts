// The valid-input fast path (engine/schema/closed-schema.ts) skips the walk for a value its
// schema's closed twin accepts. It must never change an answer: every outcome is compared with the
// same schema wrapped so that it has no twin (`allOf: [true]` changes nothing else), on generated
// plain schemas and values that are valid, renamed, extended, mistyped or cut short.
import fc from 'fast-check';
import t from 'tap';
import { applySchema, compiledSchema } from '../../engine/schema/index.js';
import { repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261127);
const NAMES = ['name', 'first_name', 'year', 'tags', 'ok', 'kind', 'note'];
const VARIANTS: Record<string, string[]> = { first_name: ['First Name', 'firstName', 'FIRST-NAME'], name: ['Name', ' name '] };

type Schema = Record<string, unknown>;

const scalarSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.constant({ type: 'integer', minimum: 0 }),
  fc.constant({ type: 'number' }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: ['string', 'null'] }),
  fc.constant({ enum: ['red', 'green', 'Blue'] }),
  fc.constant({ const: 'x' }),
  fc.constant({ type: 'string', default: 'n/a' }),
);

const schemaArb: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarSchema,
    fc.record({ type: fc.constant('array'), items: tie('node') }),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom(...NAMES), tie('node'), { maxKeys: 4 }),
        required: fc.subarray(NAMES, { maxLength: 2 }),
        additionalProperties: fc.oneof(fc.constant(true), fc.constant(false), fc.constant({ type: 'integer' })),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    fc.record({ type: fc.constant('object'), additionalProperties: tie('node') }),
  ),
})).node;

/** A value shaped like the schema, with some members renamed, added, retyped or left out. */
function valueFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const noise: fc.Arbitrary<unknown> = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constant('12'), fc.constant('TRUE'));
  if (depth > 4) return noise;
  if (schema.type === 'array') return fc.array(valueFor(schema.items as Schema, depth + 1), { maxLength: 3 });
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const extra = (schema.additionalProperties ?? true) as Schema | boolean;
    const members = Object.keys(properties).map((name) => fc.tuple(
      fc.constantFrom(name, ...(VARIANTS[name] ?? [])),
      fc.oneof({ weight: 4, arbitrary: valueFor(properties[name]!, depth + 1) }, { weight: 1, arbitrary: noise }),
      fc.boolean(),
    ));
    const more = fc.array(fc.tuple(fc.constantFrom('extra', 'Year', 'note'), typeof extra === 'object' ? valueFor(extra, depth + 1) : noise), { maxLength: 2 });
    return fc.tuple(fc.tuple(...members), more).map(([picked, added]) => {
      const out: Record<string, unknown> = {};
      for (const [name, value, keep] of picked) if (keep) out[name] = value;
      for (const [name, value] of added) out[name] = value;
      return out;
    });
  }
  if (schema.enum !== undefined) return fc.oneof(fc.constantFrom(...(schema.enum as string[])), fc.constant('RED'), noise);
  if (schema.const !== undefined) return fc.oneof(fc.constant(schema.const), fc.constant('X'), noise);
  const scalars: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 5 }), integer: fc.nat(100), number: fc.double({ noNaN: true, noDefaultInfinity: true }), boolean: fc.boolean(),
  };
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return fc.oneof({ weight: 4, arbitrary: scalars[type as string] ?? noise }, { weight: 1, arbitrary: noise });
}

const caseArb = schemaArb.chain((schema) => fc.tuple(fc.constant(schema), valueFor(schema, 0), fc.constantFrom('strict', 'lenient')));

t.test('a plain schema gets a twin; one with branches or composition does not', async (t) => {
  const twinOf = (schema: unknown): boolean => {
    const compiled = compiledSchema(schema);
    return compiled.ok && compiled.unchangedIfValid !== null;
  };
  t.ok(twinOf({ type: 'object', properties: { a: { type: 'string' }, b: { $ref: '#/$defs/b' } }, $defs: { b: { type: 'array', items: { type: 'integer' } } } }));
  t.ok(twinOf(true));
  for (const schema of [
    { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    { type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } } },
    { type: 'object', allOf: [{ properties: { a: {} } }] },
    { type: 'object', patternProperties: { '^x': {} } },
    { type: 'object', properties: { a: { if: { type: 'string' }, then: { minLength: 1 } } } },
    { type: 'array', items: [{ type: 'string' }] },
    { $id: 'https://example.com/s', type: 'object', properties: {} },
    { type: 'object', properties: { a: { $ref: 'other.json#/x' } } },
    { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }] } },
  ]) t.notOk(twinOf(schema), JSON.stringify(schema));
});

t.test('the fast path gives exactly the walk\'s answer, on valid and invalid values alike', async (t) => {
  let skipped = 0;
  fc.assert(fc.property(caseArb, ([schema, value, mode]) => {
    const fast = applySchema(structuredClone(value), schema, mode as 'strict' | 'lenient');
    const walked = applySchema(structuredClone(value), { allOf: [true], ...schema }, mode as 'strict' | 'lenient');
    const compiled = compiledSchema(schema);
    if (compiled.ok && compiled.unchangedIfValid?.(structuredClone(value)) === true) skipped++;
    t.same(fast, walked, JSON.stringify({ schema, value, mode }));
    return true;
  }), { seed: SEED, numRuns: 1500 });
  t.ok(skipped > 100, `the fast path was taken (${skipped} of 1500) and still agreed`);
});

t.test('a member the walk would rename or remove keeps the walk', async (t) => {
  const schema = { type: 'object', properties: { first_name: { type: 'string' } }, additionalProperties: true };
  const r = repair('{"First Name": "Ada"}', { schema });
  t.same(r.repaired, { first_name: 'Ada' });
  t.equal(r.metadata.schema_repairs[0]?.type, 'matched_field_name');
  const open = { type: 'object', properties: { a: { type: 'integer' } } };
  const strict = repair('{"a": 1, "b": 2}', { schema: open });
  t.same(strict.repaired, { a: 1 }, 'strict mode still removes the undeclared member of a valid value');
  t.same(repair('{"a": 1, "b": 2}', { schema: open, mode: 'lenient' }).repaired, { a: 1, b: 2 });
});

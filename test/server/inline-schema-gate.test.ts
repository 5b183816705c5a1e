// The HTTP thread's decision on schemas, in-process (server/batch/inline-schema-gate.ts).
import t from 'tap';
import { clearSchemaCache, isSchemaTextCompiled } from '../../dist/engine/schema/index.js';
import {
  INLINE_COMPILE_BUDGET_MS, INLINE_SCHEMA_COMPILE_MAX_MS, INLINE_SMALL_SCHEMA_TEXT, InlineSchemaGate, LOADED_COMPILE_MAX_MS,
} from '../../dist/server/batch/inline-schema-gate.js';

t.beforeEach(() => clearSchemaCache());

t.test('an unseen schema is refused, and named for the route to pair with the pool answer', async (t) => {
  const gate = new InlineSchemaGate();
  const schema = { type: 'object', properties: { a: { type: 'number' } } };
  t.equal(gate.admits(schema), false);
  t.equal(gate.takeRefused(), JSON.stringify(schema));
  t.equal(gate.takeRefused(), null, 'cleared by reading');
  t.equal(isSchemaTextCompiled(JSON.stringify(schema)), false, 'nothing was compiled');
});

t.test('learned cheap: compiled at the next sighting and admitted from then on', async (t) => {
  const gate = new InlineSchemaGate();
  const schema = { type: 'array', items: { type: 'string' } };
  gate.admits(schema);
  gate.learn(gate.takeRefused()!, INLINE_SCHEMA_COMPILE_MAX_MS - 1);
  t.equal(gate.admits(schema), true);
  t.equal(gate.takeRefused(), null);
  t.equal(isSchemaTextCompiled(JSON.stringify(schema)), true);
  t.equal(gate.admits(schema), true, 'a cache hit from then on');
});

t.test('learned expensive: a large schema is never compiled here', async (t) => {
  const gate = new InlineSchemaGate();
  const schema = { type: 'string', minLength: 2, description: 'x'.repeat(INLINE_SMALL_SCHEMA_TEXT) };
  gate.admits(schema);
  gate.learn(gate.takeRefused()!, INLINE_SCHEMA_COMPILE_MAX_MS + 1);
  for (let i = 0; i < 3; i++) t.equal(gate.admits(schema), false);
  t.equal(isSchemaTextCompiled(JSON.stringify(schema)), false);
});

t.test('a small schema read as dear on a busy machine still ends up compiled here, once', async (t) => {
  const gate = new InlineSchemaGate();
  const schema = { type: 'object', properties: { price: { type: 'number' }, name: { type: 'string' } }, required: ['price'] };
  gate.admits(schema);
  gate.learn(gate.takeRefused()!, LOADED_COMPILE_MAX_MS - 1); // a 6 ms compile timed with the load at 8 on 2 cores
  t.equal(gate.admits(schema), true, 'compiled at the next sighting');
  t.equal(gate.admits(schema), true, 'a cache hit from then on');
  const pathological = { type: 'object', properties: { tag: { type: 'string' } } };
  gate.admits(pathological);
  gate.learn(gate.takeRefused()!, LOADED_COMPILE_MAX_MS + 1);
  t.equal(gate.admits(pathological), false, 'dearer than any load explains: it stays in the pool');
  gate.learn(gate.takeRefused()!, INLINE_SCHEMA_COMPILE_MAX_MS - 1);
  t.equal(gate.admits(pathological), true, 'a later, lower reading stands');
});

t.test('the remembered costs are bounded: the oldest is forgotten first', async (t) => {
  const gate = new InlineSchemaGate();
  const schemaOf = (i: number): object => ({ type: 'object', title: `s${i}` });
  for (let i = 0; i <= 512; i++) gate.learn(JSON.stringify(schemaOf(i)), 1);
  t.equal(gate.admits(schemaOf(0)), false, 'the first one was forgotten');
  t.equal(gate.admits(schemaOf(512)), true, 'the newest is still known');
});

t.test('compiles on the HTTP thread are bounded per second, whatever clients send', async (t) => {
  let clock = 0;
  const gate = new InlineSchemaGate(() => clock);
  const schemaOf = (i: number): object => ({ type: 'object', title: `budget-${i}` });
  const perCompile = INLINE_SCHEMA_COMPILE_MAX_MS; // charged at the worker-measured cost when that is larger
  const fit = Math.floor(INLINE_COMPILE_BUDGET_MS / perCompile);
  for (let i = 0; i <= fit; i++) gate.learn(JSON.stringify(schemaOf(i)), perCompile);
  for (let i = 0; i < fit; i++) t.equal(gate.admits(schemaOf(i)), true, `compile ${i + 1} fits the budget`);
  t.equal(gate.admits(schemaOf(fit)), false, 'the next one is past the budget: it goes to the pool');
  t.equal(isSchemaTextCompiled(JSON.stringify(schemaOf(fit))), false);
  clock += 1000;
  t.equal(gate.admits(schemaOf(fit)), true, 'a second later the budget is back');
});

t.test('an admitted request\'s schema object is serialized once: the repair finds it by the object', async (t) => {
  const { repair } = await import('../../dist/engine/index.js');
  const gate = new InlineSchemaGate();
  const text = JSON.stringify({ type: 'object', properties: { a: { type: 'number' } } });
  // Each request brings a new, equal object; this one counts how often it is serialized.
  let serialized = 0;
  const requestSchema = (): object => {
    const schema = JSON.parse(text) as Record<string, unknown>;
    const type = schema.type;
    Object.defineProperty(schema, 'type', { enumerable: true, get: () => { serialized++; return type; } });
    return schema;
  };
  gate.admits(requestSchema());
  gate.learn(gate.takeRefused()!, 1);
  t.equal(gate.admits(requestSchema()), true, 'compiled here at the second sighting');
  const schema = requestSchema();
  serialized = 0;
  t.equal(gate.admits(schema), true);
  t.equal(serialized, 1, 'the gate serializes it to ask');
  const answer = repair('{"a": "1"}', { schema });
  t.same(answer.repaired, { a: 1 });
  t.equal(serialized, 1, 'the repair did not serialize it again');
});

t.test('copies of a schema whose first compile is in the pool wait for it, bounded', async (t) => {
  const gate = new InlineSchemaGate();
  const schema = { type: 'object', properties: { w: { type: 'integer' } } };
  gate.admits(schema);
  const text = gate.takeRefused()!;
  t.equal(gate.waitFor(text), null, 'nothing in flight: the first goes to the pool');
  let answer!: () => void;
  gate.compiling(text, new Promise<void>((resolve) => { answer = resolve; }));
  const waits = Array.from({ length: 300 }, () => gate.waitFor(text));
  t.equal(waits.filter((w) => w !== null).length, 256, 'at most 256 wait; the rest go to the pool');
  gate.learn(text, 1);
  answer();
  await waits[0];
  t.equal(gate.admits(schema), true, 'after the first compile is read, the copies run inline');
  t.equal(gate.waitFor(text), null, 'no longer in flight');
});

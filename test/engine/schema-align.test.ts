// Schema-aligned reading: the schema chooses how the reply is read — its root scalar, one of
// several JSON values, member names and values written another way — and every liberty is reported.
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';
import type { RepairResponse } from '../../engine/index.js';

const ENUM = { enum: ['ONE', 'TWO'] };
const types = (r: RepairResponse): string[] => r.metadata.repairs_applied.map((d) => d.type);
const detail = (r: RepairResponse, type: string) => r.metadata.repairs_applied.find((d) => d.type === type);

t.test('the root scalar: bare text read as the value the schema asks for', async (t) => {
  const rows: Array<[string, unknown, unknown, 'high' | 'medium' | 'low']> = [
    ['TWO', ENUM, 'TWO', 'high'],
    ['  ONE\n', ENUM, 'ONE', 'high'],
    ['two', ENUM, 'TWO', 'medium'],
    ['"two"', ENUM, 'TWO', 'medium'],
    ['**TWO**', ENUM, 'TWO', 'medium'],
    ['TWO: the second option', ENUM, 'TWO', 'medium'],
    ['one - because it is first', ENUM, 'ONE', 'medium'],
    ['Sao Paulo', { enum: ['São Paulo', 'Rio de Janeiro'] }, 'São Paulo', 'medium'],
    ['The answer is One, clearly.', ENUM, 'ONE', 'low'],
    ['São Paulo', { type: 'string' }, 'São Paulo', 'medium'],
    ['hello world', { type: 'string' }, 'hello world', 'medium'],
    ['"hello"', { type: 'string' }, 'hello', 'high'],
    ['$1,200.50', { type: 'number' }, 1200.5, 'medium'],
    ['**true**', { type: 'boolean' }, true, 'medium'],
    ['pending', { const: 'PENDING' }, 'PENDING', 'medium'],
  ];
  for (const [input, schema, value, confidence] of rows) {
    const r = repair(input, { schema });
    t.ok(r.success, `${input}: success`);
    t.same(r.repaired, value, `${input}: value`);
    t.equal(r.metadata.confidence, confidence, `${input}: ${confidence}`);
  }
});

t.test('two enum members in the prose: a failure naming both', async (t) => {
  const r = repair('It is either one or two, hard to say', { schema: ENUM });
  t.notOk(r.success);
  t.match(r.metadata.errors[0]!.message, /"ONE".*"TWO"/);
});

t.test('text that names no member stays a failure', async (t) => {
  t.notOk(repair('three', { schema: ENUM }).success);
});

t.test('several JSON values: the one that fits the schema is chosen and reported', async (t) => {
  const schema = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id'] };
  const prose = 'An example looks like {"name": "x"}, and the answer is {"id": 7, "name": "y"} as asked.';
  let r = repair(prose, { schema });
  t.same(r.repaired, { id: 7, name: 'y' });
  t.equal(detail(r, 'selected_candidate')?.confidence, 'medium');
  t.equal(detail(r, 'selected_candidate')?.position, prose.indexOf('{"id"'));

  // an object, then an array: the schema wants the array
  r = repair('{"note": "ignore"}\n[1, 2, 3]', { schema: { type: 'array', items: { type: 'integer' } } });
  t.same(r.repaired, [1, 2, 3]);
  t.ok(types(r).includes('selected_candidate'));

  // a fenced block after an inline example that does not fit
  r = repair('Format: {"id": "number"}\n```json\n{"id": 3}\n```', { schema });
  t.same(r.repaired, { id: 3 });

  // the cheaper fit wins: the second needs no coercion
  r = repair('{"id": "4"} or rather {"id": 5}', { schema });
  t.same(r.repaired, { id: 5 });
});

t.test('equal fits are never chosen silently', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
  const r = repair('{"a": 1} and also {"a": 2}', { schema });
  t.ok(r.success);
  t.equal(detail(r, 'selected_candidate')?.confidence, 'low');
  t.ok(r.metadata.warnings.some((w) => w.code === 'AMBIGUOUS_CANDIDATES'));
  t.equal(r.metadata.confidence, 'low');
});

t.test('without a schema, the first reading stands', async (t) => {
  const r = repair('{"a": 1} and also {"a": 2}');
  t.notOk(types(r).includes('selected_candidate'));
});

t.test('member names written another way match one declared property', async (t) => {
  const schema = { type: 'object', properties: { first_name: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer' } } };
  const r = repair('{"First Name": "Ada", "last_name": "L", "AGE ": 36}', { schema });
  t.same(r.repaired, { first_name: 'Ada', lastName: 'L', age: 36 });
  t.same(Object.keys(r.repaired as object), ['first_name', 'lastName', 'age'], 'order kept');
  const renames = r.metadata.schema_repairs.filter((d) => d.type === 'matched_field_name');
  t.equal(renames.length, 3);
  t.ok(renames.every((d) => d.confidence === 'medium'));
  t.same(renames[0]!.original_value, 'First Name');
});

t.test('a name two properties could mean is not renamed', async (t) => {
  const schema = { type: 'object', properties: { user_id: { type: 'integer' }, userId: { type: 'integer' } }, additionalProperties: true };
  const r = repair('{"USER ID": 3}', { schema, mode: 'lenient' });
  t.notOk(types(r).includes('matched_field_name'));
  t.same(r.repaired, { 'USER ID': 3 });
});

t.test('numbers with a currency sign or thousands separators, for a number field', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, c: { type: 'integer' } } };
  const r = repair('{"a": "12,111", "b": "$1,000.50", "c": "-€3"}', { schema });
  t.same(r.repaired, { a: 12111, b: 1000.5, c: -3 });
  t.ok(r.metadata.schema_repairs.every((d) => d.type === 'type_coercion' && d.confidence === 'medium'));
  // a decimal comma, or commas not between groups of three, are not guessed
  t.notOk(repair('{"a": "1,5"}', { schema }).success);
  t.notOk(repair('{"a": "1,00,0"}', { schema }).success);
});

t.test('a one-element array where the item is wanted', async (t) => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } };
  const r = repair('{"name": ["Ada"], "n": ["3"]}', { schema });
  t.same(r.repaired, { name: 'Ada', n: 3 });
  t.ok(r.metadata.schema_repairs.every((d) => d.confidence === 'medium'));
  t.notOk(repair('{"name": ["Ada", "Bob"]}', { schema }).success, 'two items: no choice made');
});

t.test('streaming with a schema: finalize is batch, and partial is the schema-repaired value once complete', async (t) => {
  const schema = { type: 'object', properties: { age: { type: 'integer' }, first_name: { type: 'string' } } };
  const text = '{"age": "42", "First Name": "Ada"}';
  for (const size of [1, 3, 7]) {
    const stream = createStream({ schema });
    let last: unknown;
    for (let k = 0; k < text.length; k += size) last = stream.push(text.slice(k, k + size)).partial;
    t.same(last, { age: 42, first_name: 'Ada' }, `${size}-character pushes: partial`);
    t.same(stream.finalize(), repair(text, { schema }), `${size}-character pushes: finalize`);
  }
  for (const input of ['two', 'Example {"id": "x"}\n```json\n{"id": 1}\n```']) {
    const s = { enum: ['ONE', 'TWO'] };
    const sch = input === 'two' ? s : { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
    const stream = createStream({ schema: sch });
    for (let k = 0; k < input.length; k += 2) stream.push(input.slice(k, k + 2));
    t.same(stream.finalize(), repair(input, { schema: sch }));
  }
});

t.test('unescaped inner quotes in string items, where the schema says the items are strings', async (t) => {
  const schema = { type: 'object', properties: { quotes: { type: 'array', items: { type: 'string' } } } };
  const text = '{"quotes": ["He said "yes", then left", "She said "no""]}';
  const r = repair(text, { schema });
  t.same(r.repaired, { quotes: ['He said "yes", then left', 'She said "no"'] });
  t.equal(r.metadata.confidence, 'medium');
  t.ok(types(r).includes('escaped_inner_quote'));
  // without a schema, `["a", b]` holds a bare element: today's reading stands
  t.same(repair(text).repaired, { quotes: ['He said "yes', 'then left', 'She said "no"'] });
});

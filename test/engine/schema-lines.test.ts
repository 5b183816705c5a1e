// Lines and lists read through the schema (docs/schema.md "Lines and lists"): with an object
// schema, `key: value` lines are the object's members, each read as its declared type; with an
// array schema, markdown bullet or numbered items are the elements, kept whole, and a labelled
// one-line list splits at its commas. Never high; without a schema today's rules stand.
// Generated: values, the lines' spelling (plain, bold labels, list markers, `=`, Title Case names,
// YAML blocks), prose around them.
import fc from 'fast-check';
import t from 'tap';
import { repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const word = fc.stringMatching(/^[a-z]{2,8}$/);
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const textWithCommas = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(', '));

type Kind = 'string' | 'integer' | 'boolean' | 'tags';
const FIELDS: Array<[string, Kind]> = [
  ['name', 'string'], ['first_name', 'string'], ['city', 'string'], ['age', 'integer'], ['count', 'integer'],
  ['active', 'boolean'], ['verified', 'boolean'], ['tags', 'tags'], ['notes', 'string'],
];
const fieldSet = fc.subarray(FIELDS, { minLength: 1, maxLength: 6 });

function valueArb(kind: Kind): fc.Arbitrary<unknown> {
  if (kind === 'string') return text;
  if (kind === 'integer') return fc.integer({ min: -999, max: 99999 });
  if (kind === 'boolean') return fc.boolean();
  return fc.array(word, { minLength: 1, maxLength: 4 });
}

const objectCase = fieldSet.chain((fields) => fc.tuple(
  fc.constant(fields),
  fc.tuple(...fields.map(([, kind]) => valueArb(kind))),
  fc.constantFrom('plain', 'bold', 'dash', 'equals', 'title', 'quoted-name'),
  fc.constantFrom('', 'Here are the details:\n', 'Sure! The record is below.\n\n', '```yaml\n', '```\n', 'Here:\n```yml\n'),
  fc.constantFrom('', '\n\nLet me know if you need anything else.', '\nHope this helps', '\n```', '\n```\nDone.'),
  fc.constantFrom('inline', 'block'),
  fc.constantFrom('words', 'yesno'),
));

function titleCase(name: string): string {
  return name.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
}

t.test('key: value lines are the object schema\'s members, each read as its declared type', (t) => {
  fc.assert(fc.property(objectCase, ([fields, values, style, before, after, lists, booleans]) => {
    const properties: Record<string, object> = {};
    for (const [name, kind] of fields) properties[name] = kind === 'tags' ? { type: 'array', items: { type: 'string' } } : { type: kind };
    const schema = { type: 'object', properties };
    const want: Record<string, unknown> = {};
    const lines: string[] = [];
    fields.forEach(([name, kind], k) => {
      const v = values[k];
      want[name] = v;
      const label = style === 'title' || style === 'bold' ? titleCase(name) : style === 'quoted-name' ? `"${name}"` : name;
      let shown: string;
      if (kind === 'tags') {
        if (lists === 'block') {
          lines.push(style === 'bold' ? `**${label}:**` : style === 'dash' ? `- ${label}:` : `${label}:`);
          for (const item of v as string[]) lines.push(`  - ${item}`);
          return;
        }
        shown = (v as string[]).join(', ');
      } else if (kind === 'boolean') shown = booleans === 'yesno' ? (v ? 'yes' : 'no') : String(v);
      else shown = String(v);
      if (style === 'bold') lines.push(`**${label}:** ${shown}`);
      else if (style === 'dash') lines.push(`- ${label}: ${shown}`);
      else if (style === 'equals') lines.push(`${label} = ${shown}`);
      else lines.push(`${label}: ${shown}`);
    });
    const reply = before + lines.join('\n') + after;
    const r = repair(reply, { schema });
    if (!r.success) return false;
    if (JSON.stringify(r.repaired) !== JSON.stringify(want)) return false;
    if (r.metadata.confidence === 'high') return false;
    // Without a schema, today's rules: never these lines read as members.
    const bare = repair(reply);
    return !bare.metadata.repairs_applied.some((d) => d.type === 'read_lines_as_value');
  }), { seed: SEED, numRuns: 400 });
  t.end();
});

const listCase = fc.tuple(
  fc.oneof(fc.array(textWithCommas, { minLength: 1, maxLength: 6 }).map((v) => ['string', v] as const),
    fc.array(fc.integer({ min: -999, max: 999 }), { minLength: 1, maxLength: 6 }).map((v) => ['number', v] as const)),
  fc.constantFrom('- ', '* ', '+ ', 'numbered', 'numbered-paren'),
  fc.constantFrom('', 'Here is the list:\n', 'Sure!\n\n'),
  fc.constantFrom('', '\n\nAnything else?', '\nThese are all of them.'),
);

t.test('markdown list items are the array schema\'s elements, kept whole', (t) => {
  fc.assert(fc.property(listCase, ([[type, items], marker, before, after]) => {
    const schema = { type: 'array', items: { type } };
    const lines = (items as unknown[]).map((item, k) =>
      (marker === 'numbered' ? `${k + 1}. ` : marker === 'numbered-paren' ? `${k + 1}) ` : marker) + String(item));
    const r = repair(before + lines.join('\n') + after, { schema });
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(items) && r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('a one-line list after a label splits at its commas', (t) => {
  fc.assert(fc.property(fc.array(text, { minLength: 2, maxLength: 6 }), fc.constantFrom('Fruits', 'Tags', 'The colors', 'Answer'),
    fc.constantFrom('', '.'), (items, label, end) => {
      const r = repair(`${label}: ${items.join(', ')}${end}`, { schema: { type: 'array', items: { type: 'string' } } });
      return r.success && JSON.stringify(r.repaired) === JSON.stringify(items) && r.metadata.confidence !== 'high';
    }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('in a list of short items the last `and`/`or` joins two items (`red, green and blue`)', (t) => {
  const short = fc.array(word.filter((w) => w !== 'and' && w !== 'or'), { minLength: 1, maxLength: 2 }).map((w) => w.join(' '));
  fc.assert(fc.property(fc.array(short, { minLength: 3, maxLength: 6 }), fc.constantFrom(' and ', ', and ', ' or ', ' & '), (items, join) => {
    const line = `${items.slice(0, -1).join(', ')}${join}${items[items.length - 1]}`;
    const r = repair(`Tags: ${line}`, { schema: { type: 'array', items: { type: 'string' } } });
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(items) && r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('named cases', (t) => {
  const person = {
    type: 'object', required: ['name'],
    properties: { name: { type: 'string' }, age: { type: 'integer' }, address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } } },
      tags: { type: 'array', items: { type: 'string' } } },
  };
  const cases: Array<[string, object, unknown]> = [
    ['name: Ann\naddress:\n  city: Paris\n  zip: "75001"\ntags:\n  - a\n  - b', person, { name: 'Ann', address: { city: 'Paris', zip: '75001' }, tags: ['a', 'b'] }],
    ['name: Ann, age: 30, tags: x, y', person, { name: 'Ann', age: 30, tags: ['x', 'y'] }],
    ['Name: Ann Lee, PhD\nAge: 41', person, { name: 'Ann Lee, PhD', age: 41 }],
    ['1. Preheat the oven, then wait\n2. Mix: flour and eggs', { type: 'array', items: { type: 'string' } }, ['Preheat the oven, then wait', 'Mix: flour and eggs']],
  ];
  for (const [reply, schema, want] of cases) {
    const r = repair(reply, { schema });
    t.same(r.repaired, want, reply);
    t.equal(r.metadata.confidence, 'medium', `${reply}: medium`);
  }
  // A required member missing from the lines: the schema still fails the reply.
  t.equal(repair('age: 30\ncity: Paris', { schema: person }).success, false);
  // Without a schema, YAML stays no JSON.
  t.equal(repair('name: Ann\nage: 30').success, false);
  t.end();
});

t.test('a list member written in brackets (`tags: [a, b]`, `(a, b)`): the brackets enclose the list', (t) => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, nums: { type: 'array', items: { type: 'integer' } } }, required: ['name'] };
  fc.assert(fc.property(text, fc.array(word, { minLength: 1, maxLength: 4 }), fc.array(fc.integer({ min: -99, max: 999 }), { minLength: 1, maxLength: 4 }),
    fc.constantFrom(['[', ']'], ['(', ')']), fc.constantFrom('', "'"), (name, tags, nums, [open, close], q) => {
      const input = `name: ${name}\ntags: ${open}${tags.map((w) => `${q}${w}${q}`).join(', ')}${close}\nnums: ${open}${nums.join(', ')}${close}`;
      const r = repair(input, { schema });
      if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify({ name, tags, nums })) throw new Error(`${JSON.stringify(input)} -> ${JSON.stringify(r.repaired)}`);
      return r.metadata.confidence !== 'high';
    }), { seed: SEED, numRuns: 150 });
  const labelled = repair('Fruits: [apple, pear, fig]', { schema: { type: 'array', items: { type: 'string' } } });
  t.same(labelled.repaired, ['apple', 'pear', 'fig']);
  t.end();
});

// The streaming healer's property, on model outputs from the engine's corpora and on generated
// ones: for every way of cutting a text into deltas, the deltas joined equal healJson's text for
// the whole, and every prefix sent is a prefix of it (nothing sent is taken back). Fixed seed, so a
// failure reproduces (FC_SEED explores others).
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import t from 'tap';
import { MalformedEmitter, type MalformedStyle } from '../../bench/engine/emit-malformed.js';
import { createRandom } from '../../support/random.js';
import { inputsOf } from '../helpers/fixture-inputs.js';
import { check } from '../helpers/heal-check.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const SCHEMAS: Array<object | undefined> = [
  undefined,
  { type: 'object' },
  {
    type: 'object',
    properties: { name: { type: 'string' }, a: { type: 'number' }, key: { type: 'string' }, id: { type: 'integer' }, status: { enum: ['ok', 'error'] } },
    required: ['name'],
  },
];

const fixtures = new URL('../fixtures/peer-cases/', import.meta.url);
const CORPUS = [
  ...inputsOf(new URL('fixtures/model-output.json', import.meta.url).pathname),
  ...inputsOf(new URL('fixtures/peer-families.json', import.meta.url).pathname),
  ...readdirSync(fixtures).filter((f) => f.endsWith('.json')).flatMap((f) => inputsOf(new URL(f, fixtures).pathname)),
];

const everyChar = (text: string): number[] => Array.from({ length: text.length }, (_, k) => k);

t.test(`corpus (${CORPUS.length} model outputs): 1-character deltas`, async (t) => {
  for (const text of CORPUS) for (const schema of SCHEMAS) check(text, schema, everyChar(text));
  t.pass('every output, every schema');
});

t.test('corpus: random deltas, random schema, truncated or not', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: CORPUS.length - 1 }),
      fc.integer({ min: 0, max: SCHEMAS.length - 1 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      fc.boolean(),
      (k, s, cuts, truncated) => {
        const text = CORPUS[k]!;
        check(text, SCHEMAS[s], cuts.map((c) => c % (text.length + 1)), truncated);
      },
    ),
    { seed: SEED, numRuns: 3000 },
  );
  t.pass('3000 cuts');
});

t.test('every corpus output in token-sized deltas', async (t) => {
  const random = createRandom(SEED);
  for (const text of CORPUS) {
    const cuts: number[] = [];
    for (let at = 0; at < text.length; at += 1 + Math.floor(random.next() * 6)) cuts.push(at);
    for (const schema of SCHEMAS) check(text, schema, cuts);
  }
  t.pass('every output');
});

// Spellings with exactly one reading (emit-malformed.ts), and plain JSON with random whitespace.
const style: fc.Arbitrary<MalformedStyle> = fc.record({
  bareKeys: fc.constantFrom(0, 0, 0.5),
  singleQuotes: fc.constantFrom(0, 0, 0.5),
  trailingCommas: fc.constantFrom(0, 0.3),
  lineComments: fc.constantFrom(0, 0.2),
  blockComments: fc.constantFrom(0, 0.2),
  missingCommas: fc.constantFrom(0, 0.3),
  pythonLiterals: fc.boolean(),
});

/** Whitespace around JSON's structural characters, chosen by `seed`. */
function spaced(value: unknown, seed: number): string {
  const random = createRandom(seed);
  const pad = (): string => [' ', '', '\n  ', '\t', ''][Math.floor(random.next() * 5)]!;
  return JSON.stringify(value).replace(/([{}[\],:])(?=(?:[^"\\]|\\.|"(?:[^"\\]|\\.)*")*$)/g, (m) => pad() + m + pad());
}

const tail = fc.constantFrom('', '<|call|>', '<|endoftext|>', '\n```', ' Hope this helps!', '\n{"x": 1}', '}', ']', ',', ' ');
const generated = fc.record({
  value: fc.oneof(fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), fc.jsonValue({ maxDepth: 3 })),
  spelling: fc.oneof(style, fc.constant(null)),
  seed: fc.nat(),
  cutAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  tail,
});

t.test('generated values: random whitespace, random defects, cut short, special tokens', async (t) => {
  fc.assert(
    fc.property(generated, fc.array(fc.nat(), { maxLength: 30 }), fc.integer({ min: 0, max: SCHEMAS.length - 1 }), (g, cuts, s) => {
      let text: string;
      if (g.spelling === null) text = spaced(g.value, g.seed);
      else {
        const emitter = new MalformedEmitter(createRandom(g.seed), g.spelling);
        emitter.value(g.value, '');
        text = emitter.text();
      }
      if (g.cutAt !== null) text = text.slice(0, Math.floor(text.length * g.cutAt));
      text += g.tail;
      check(text, SCHEMAS[s], cuts.map((c) => c % (text.length + 1)));
      check(text, SCHEMAS[s], everyChar(text).filter((k) => k % 3 === g.seed % 3));
    }),
    { seed: SEED, numRuns: 1500 },
  );
  t.pass('1500 generated outputs');
});

t.test('a surrogate pair split across deltas', async (t) => {
  for (const text of ['{"emoji":"😀🎉","k":"a😀"}', '{"e": "\\ud83d\\ude00"}', '["😀", "x😀y"]', '{"😀": 1, "b": "😀"}']) {
    for (const schema of SCHEMAS) check(text, schema, everyChar(text));
  }
  t.pass('split everywhere');
});

// `high` means "apply it without looking": thousands of generated replies, each the text a model
// might write for a known value — certain spellings (bench/engine/emit-malformed.ts: bare names,
// single quotes, trailing commas, comments, missing commas at line ends, Python literals) and the
// ambiguous habits (quotes left unescaped inside strings, raw line breaks, an example value in the
// prose, prose and fences around the answer) — and every answer the engine gives at high confidence
// must be exactly the value the text was written from.
import fc from 'fast-check';
import t from 'tap';
import { MalformedEmitter, type MalformedStyle } from '../../bench/engine/emit-malformed.js';
import { createRandom, type Random } from '../../support/random.js';
import { repair } from '../../engine/index.js';

/** Strings as models write them: sometimes with a quote left unescaped, or a raw line break. */
class ReplyEmitter extends MalformedEmitter {
  constructor(private readonly rng: Random, style: MalformedStyle, private readonly raw: number) {
    super(rng, style);
  }

  override string(text: string): void {
    if ((text.includes('"') || text.includes('\n')) && this.rng.chance(this.raw)) this.write(`"${text}"`);
    else super.string(text);
  }
}

const WORDS = ['alpha', 'beta', 'Paris', 'a 24" screen', 'she said "yes"', 'line one\nline two', 'it\'s', 'x, y', 'a: b', 'ok', '', '"quoted"', 'end"'];
const key = fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/), fc.constantFrom('first name', 'id', 'type', 'value'));
const scalar = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 100),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  array: fc.array(tie('value'), { maxLength: 5 }),
}));
const root = fc.oneof(fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 }), fc.array(value, { minLength: 1, maxLength: 6 }));

const chance = fc.constantFrom(0, 0.3, 1);
const habits = fc.record({
  bareKeys: chance, singleQuotes: chance, trailingCommas: chance, lineComments: fc.constantFrom(0, 0.2),
  blockComments: fc.constantFrom(0, 0.2), missingCommas: chance, pythonLiterals: fc.boolean(),
  raw: chance, before: fc.constantFrom('', 'Here is the JSON:\n', "Sure! Here's the result:\n\n", 'The shape is {"id": 1, "ok": true}. The answer:\n'),
  after: fc.constantFrom('', '\nHope this helps!', '\nFor example {"a": 1, "b": 2} would also parse.'), fenced: fc.boolean(),
});

/** The reply and how it was written. */
function write(target: object, h: fc.Arbitrary<unknown> extends never ? never : Record<string, unknown>, seed: number): string {
  const emitter = new ReplyEmitter(createRandom(seed), h as unknown as MalformedStyle, h.raw as number);
  emitter.value(target, '');
  const body = emitter.text();
  return `${h.before as string}${h.fenced === true ? `\`\`\`json\n${body}\n\`\`\`` : body}${h.after as string}`;
}

t.test('every high-confidence answer to a generated reply is the value it was written from', async (t) => {
  let high = 0;
  let total = 0;
  fc.assert(fc.property(root, habits, fc.nat(), (target, h, seed) => {
    const text = write(target as object, h, seed);
    const r = repair(text);
    total++;
    if (!r.success || r.metadata.confidence !== 'high') return;
    high++;
    const wanted = JSON.stringify(target);
    const got = JSON.stringify(r.repaired);
    if (got !== wanted) throw new Error(`high but wrong:\n  text: ${JSON.stringify(text)}\n  got:  ${got}\n  want: ${wanted}\n  repairs: ${r.metadata.syntax_repairs.map((d) => `${d.type}:${d.confidence}`).join(' ')}`);
  }), { numRuns: 4000, seed: 20_251_125 });
  // The property says nothing if almost nothing is answered at high: most certain spellings are.
  t.ok(high > total / 4, `${high} of ${total} answered at high`);
});

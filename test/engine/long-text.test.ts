// Long text stays whole (docs/repairs.md "Long text"): a string value written with raw line breaks,
// tabs and unescaped inner quotes — paragraphs, quoted speech (`"Yes," she said, "I will."`), a
// quote that opens a line — is one string, and the members after it are kept, with and without a
// schema, in strict mode too; never at high (inner quotes were guessed). Generated: sentences,
// speech in several layouts, paragraph breaks, the member's place, the members after it.
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const word = fc.constantFrom('the', 'rain', 'stopped', 'she', 'looked', 'at', 'him', 'nothing', 'was', 'left', 'Anna', 'river', 'morning', 'light');
const words = fc.array(word, { minLength: 2, maxLength: 7 }).map((w) => w.join(' '));
const sentence = words.map((w) => w[0]!.toUpperCase() + w.slice(1) + '.');
const said = fc.constantFrom('she said', 'he replied', 'Anna answered', 'he added');
/** One piece of the text: a plain sentence or quoted speech in one of the layouts writers use. */
const piece = fc.oneof(
  sentence,
  fc.tuple(words, said).map(([w, s]) => `"${w[0]!.toUpperCase()}${w.slice(1)}," ${s}.`),
  fc.tuple(words, said, words).map(([a, s, b]) => `"${a}," ${s}, "${b}."`),
  fc.tuple(said, words).map(([s, w]) => `${s[0]!.toUpperCase()}${s.slice(1)}: "${w}."`),
  words.map((w) => `"${w}" was all that was written.`),
);
const joiner = fc.constantFrom(' ', '\n', '\n\n', '\t');
const text = fc.array(fc.tuple(piece, joiner), { minLength: 2, maxLength: 6 })
  .map((parts) => parts.map(([p, j], k) => (k === 0 ? '' : j) + p).join(''))
  .filter((s) => s.includes('"') && /[\n\t]/.test(s));

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, body: { type: 'string' }, words: { type: 'integer' }, done: { type: 'boolean' } },
  required: ['title', 'body', 'words'],
};

t.test('a long text with line breaks, tabs and quoted speech is one string; the members after it are kept', (t) => {
  fc.assert(fc.property(text, fc.integer({ min: 1, max: 999 }), fc.boolean(), fc.constantFrom('none', 'schema', 'strict'),
    (body, count, done, how) => {
      const reply = `{"title": "Story", "body": "${body}", "words": ${count}, "done": ${done}}`;
      const opts = how === 'none' ? undefined : { schema: SCHEMA, mode: how === 'strict' ? 'strict' as const : undefined };
      const r = repair(reply, opts);
      if (!r.success) return false;
      const v = r.repaired as Record<string, unknown>;
      if (v['body'] !== body || v['words'] !== count || v['done'] !== done || v['title'] !== 'Story') return false;
      if (Object.keys(v).length !== 4) return false;
      return r.metadata.confidence !== 'high';
    }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('the same reply streamed in small pushes finalizes to the same answer', (t) => {
  fc.assert(fc.property(text, fc.integer({ min: 1, max: 9 }), (body, size) => {
    const reply = `{"title": "Story", "body": "${body}", "words": 12}`;
    const s = createStream();
    for (let k = 0; k < reply.length; k += size) s.push(reply.slice(k, k + size));
    return JSON.stringify(s.finalize()) === JSON.stringify(repair(reply));
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

t.test('a comma and a quote that do open the next member still end the string', (t) => {
  for (const [reply, want] of [
    ['{"a": "x,"b": 2}', { a: 'x', b: 2 }],
    ['{"a": "b,c,"d":"e"}', { a: 'b,c', d: 'e' }],
    ['{"a": "x", b: 2}', { a: 'x', b: 2 }],
    ["{u'a': u'', u'b': True}", { a: '', b: true }],
  ] as const) t.same(repair(reply).repaired, want, reply);
  t.end();
});

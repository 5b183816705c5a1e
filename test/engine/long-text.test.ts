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

/** JSON values a model may write inside a string: objects and arrays with strings of their own. */
const innerScalar = fc.oneof(fc.integer({ min: -99, max: 999 }), fc.stringMatching(/^[A-Za-z][a-z ]{0,10}$/), fc.boolean(), fc.constant(null));
const innerJson = fc.oneof(
  fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(innerScalar, fc.array(innerScalar, { maxLength: 3 })), { minKeys: 1, maxKeys: 4 }),
  fc.array(fc.oneof(innerScalar, fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), innerScalar, { maxKeys: 2 })), { minLength: 1, maxLength: 4 }),
).filter((v) => JSON.stringify(v).includes('"'));

t.test('JSON written in a string with its quotes unescaped is the string, whole; the members around it kept', (t) => {
  fc.assert(fc.property(innerJson, fc.constantFrom(0, 2), fc.boolean(), fc.boolean(), fc.nat(), (inner, indent, before, after, seed) => {
    const written = JSON.stringify(inner, null, indent);
    const reply = `{${before ? '"name": "get_weather", ' : ''}"arguments": "${written}"${after ? ', "id": 7' : ''}}`;
    const expected = { ...(before ? { name: 'get_weather' } : {}), arguments: written, ...(after ? { id: 7 } : {}) };
    const r = repair(reply);
    if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify(expected)) throw new Error(`${JSON.stringify(reply)} -> ${JSON.stringify(r.repaired)}`);
    if (r.metadata.confidence !== 'medium') throw new Error(`${JSON.stringify(reply)}: ${r.metadata.confidence}`);
    // With a schema that wants the object, the text is read as it.
    if (!Array.isArray(inner)) {
      const withSchema = repair(reply, { schema: { type: 'object', properties: { arguments: { type: 'object' } } } });
      if (!withSchema.success || JSON.stringify((withSchema.repaired as { arguments: unknown }).arguments) !== JSON.stringify(inner)) {
        throw new Error(`${JSON.stringify(reply)} with a schema -> ${JSON.stringify(withSchema.repaired)}`);
      }
    }
    // Streamed in random pieces, finalize answers as repair() does.
    const stream = createStream();
    let from = 0;
    let k = seed;
    while (from < reply.length) {
      const size = 1 + (k % 7);
      k = Math.floor(k / 7) + 13 * size;
      stream.push(reply.slice(from, from + size));
      from += size;
    }
    const f = stream.finalize();
    if (JSON.stringify(f.repaired) !== JSON.stringify(r.repaired)) throw new Error(`${JSON.stringify(reply)} streamed -> ${JSON.stringify(f.repaired)}`);
    return true;
  }), { seed: SEED, numRuns: 300 });
  // Not such a string: text after the closer, no quote inside, or not JSON — read as before.
  t.same(repair('{"data": "[1, 2, 3]"}').metadata.confidence, 'high');
  t.same(repair('{"note": "{name} is here"}').repaired, { note: '{name} is here' });
  t.end();
});

// Self-correction (docs/repairs.md "A reply that corrects itself"): a reply that retracts its answer
// and writes another has the later one as its answer, at medium at best; two answers with no
// retraction between them are never high and carry a warning; a retraction followed only by a
// patch of one member is undecided (a failure or low). Generated: two different answers, the
// retraction's wording and layout (bare, fenced, same line, prose around), with and without a schema.
import fc from 'fast-check';
import t from 'tap';
import { repair } from '../../engine/index.js';
import { createStream } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const key = fc.constantFrom('name', 'city', 'age', 'count', 'status', 'label', 'score');
const scalar = fc.oneof(fc.integer({ min: -50, max: 5000 }), fc.stringMatching(/^[A-Z][a-z]{1,8}( [a-z]{1,6})?$/), fc.boolean());
const answer = fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 4 });
const twoAnswers = fc.tuple(answer, answer).filter(([a, b]) => JSON.stringify(a) !== JSON.stringify(b));

const RETRACTIONS = [
  'Correction:', 'Wait, correction:', 'Wait, that is wrong. Here is the right one:', 'Actually, I made a mistake:',
  'Actually the age is off, here it is again:', 'Updated:', 'Updated answer:', 'Oops, my mistake. Here is the corrected JSON:',
  '**Correction:**', 'Hmm, wait. Let me fix that:', 'Sorry, here is the corrected version:', 'On second thought:',
  'The output got cut off, here is the complete JSON:', 'Scratch that:', '> Correction', 'Let me correct that:',
  'Final answer:', 'Final JSON:', '**Final version:**', 'Here is the final output:',
];
const retraction = fc.constantFrom(...RETRACTIONS);
const lead = fc.constantFrom('', 'Here is the JSON:\n', 'Sure! ', 'Result:\n');
const fenced = fc.boolean();
const sameLine = fc.boolean();

function show(value: unknown, fence: boolean): string {
  const json = JSON.stringify(value, null, fence ? 2 : undefined);
  return fence ? '```json\n' + json + '\n```' : json;
}

function typeOf(v: unknown): string {
  return typeof v === 'number' ? 'integer' : typeof v;
}

/** A schema both answers fit: every name either uses, typed as it is there (the later one wins a clash). */
function schemaFor(...values: Array<Record<string, unknown>>): object {
  const properties: Record<string, object> = {};
  for (const v of values) for (const [k, x] of Object.entries(v)) properties[k] = { type: typeOf(x) };
  return { type: 'object', properties };
}

function fits(value: Record<string, unknown>, schema: { properties: Record<string, { type: string }> }): boolean {
  return Object.entries(value).every(([k, x]) => schema.properties[k]!.type === typeOf(x));
}

t.test('a retraction makes the later answer the answer, at medium at best', (t) => {
  fc.assert(fc.property(twoAnswers, retraction, lead, fenced, sameLine, fc.boolean(), ([a, b], said, before, fence, inline, withSchema) => {
    const sep = inline && !fence && /^[A-Z]/.test(said) ? ' ' : '\n';
    const text = before + show(a, fence) + sep + said + '\n' + show(b, fence);
    const schema = schemaFor(a, b) as { properties: Record<string, { type: string }> };
    if (withSchema && !fits(a, schema)) return true; // the earlier answer would not fit anyway
    const r = repair(text, withSchema ? { schema } : undefined);
    if (!r.success) return false;
    if (JSON.stringify(r.repaired) !== JSON.stringify(b)) return false;
    if (r.metadata.confidence === 'high') return false;
    return r.metadata.repairs_applied.some((d) => d.type === 'selected_corrected_answer');
  }), { seed: SEED, numRuns: 400 });
  t.end();
});

t.test('an answer cut off, then written whole: the whole one', (t) => {
  fc.assert(fc.property(answer, fc.nat(), fc.constantFrom('The output got cut off, here is the complete JSON:',
    'Sorry, that was truncated. Here is the full JSON:', 'The previous output was incomplete. Complete JSON:'), (a, at, said) => {
    const whole = JSON.stringify(a, null, 2);
    const cut = whole.slice(0, 1 + (at % (whole.length - 2)));
    const r = repair(cut + '\n' + said + '\n' + whole);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(a) && r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('two answers with no retraction: never high, and a warning says so', (t) => {
  fc.assert(fc.property(twoAnswers, fc.constantFrom('\n', '\n\n', '\nor\n', '\nAlternatively:\n', ' and ', '\nAnother option:\n'), fenced, fc.boolean(),
    ([a, b], sep, fence, withSchema) => {
      const schema = schemaFor(a, b) as { properties: Record<string, { type: string }> };
      // With a schema only one may fit: then the other is no answer.
      if (withSchema && !(fits(a, schema) && fits(b, schema))) return true;
      const r = repair(show(a, fence) + sep + show(b, fence), withSchema ? { schema } : undefined);
      if (!r.success) return true;
      if (r.metadata.confidence === 'high') return false;
      return r.metadata.warnings.some((w) => w.code === 'SEVERAL_ANSWERS' || w.code === 'AMBIGUOUS_CANDIDATES' || w.code === 'VALUES_LEFT_OUT');
    }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('a retraction followed only by a patch of one member: a failure or low', (t) => {
  fc.assert(fc.property(answer, key, scalar, fc.constantFrom('Correction:', 'Wait,', 'Actually,', 'Updated:', 'Oops:'),
    fc.constantFrom('json', 'bare', 'sentence'), (a, k, v, said, how) => {
      const patch = how === 'json' ? `${JSON.stringify(k)}: ${JSON.stringify(v)}` : how === 'bare' ? `${k}: ${JSON.stringify(v)}`
        : `${k} should be ${JSON.stringify(v)}`;
      const r = repair(JSON.stringify(a) + '\n' + said + ' ' + patch);
      return !r.success || r.metadata.confidence === 'low';
    }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('retraction words inside the JSON retract nothing', (t) => {
  const words = fc.constantFrom('wait for it', 'actually fine', 'Correction: none', 'updated daily', 'the output got cut off', 'Wait,\nthen go', 'the final answer');
  fc.assert(fc.property(answer, words, fc.constantFrom('single', 'fence', 'trailing-comma'), (a, w, how) => {
    const value = { ...a, note: w, nested: { inner: 1 } };
    let text = JSON.stringify(value, null, 2);
    if (how === 'single') text = text.replace(/"/g, "'").replace("'Wait,\\nthen go'", "'Wait,\\nthen go'");
    else if (how === 'fence') text = '```json\n' + text + '\n```';
    else text = text.replace(/\n}$/, ',\n}');
    const r = repair(text);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(value) &&
      !r.metadata.repairs_applied.some((d) => d.type === 'selected_corrected_answer');
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('a phrase that names a final answer retracts only when another answer follows it', (t) => {
  for (const after of ['That is my final answer.', 'Final answer above.', 'This is the final JSON.']) {
    const r = repair(`{"a": 1}\n${after}`);
    t.same(r.repaired, { a: 1 }, after);
    t.equal(r.metadata.confidence, 'high', `${after}: nothing retracted`);
  }
  t.same(repair('First attempt: {"a": 1}\nFinal answer: {"a": 2}').repaired, { a: 2 });
  t.end();
});

t.test('named cases, and a stream answers as repair()', (t) => {
  const cases: Array<[string, unknown]> = [
    ['{"a": 1} Wait, correction: {"a": 2}', { a: 2 }],
    ['{"a": 1}\n\nActually, I made a mistake. Here is the updated JSON:\n```json\n{"a": 2}\n```', { a: 2 }],
    ['[1, 2, 3]\nActually the last one is wrong:\n[1, 2, 4]', [1, 2, 4]],
    ['{"name": "Ann", "ag\nThe output got cut off, here is the complete JSON:\n{"name": "Ann", "age": 4}', { name: 'Ann', age: 4 }],
  ];
  for (const [text, want] of cases) {
    const r = repair(text);
    t.same(r.repaired, want, text);
    t.equal(r.metadata.confidence, 'medium', `${text}: medium`);
    const s = createStream();
    for (let i = 0; i < text.length; i += 7) s.push(text.slice(i, i + 7));
    t.same(s.finalize(), r, `${text}: stream finalize equals repair()`);
  }
  const undecided = repair('{"name": "Ann", "age": 3}\nCorrection: "age": 5');
  t.equal(undecided.metadata.confidence, 'low');
  t.ok(undecided.metadata.warnings.some((w) => w.code === 'CORRECTION_NOT_APPLIED'));
  t.end();
});

t.test("the answer's own lines are passed over, a prose line with a bare label is still read", async (t) => {
  // a pretty-printed answer with bare names: its lines hold retraction words as values, not retractions
  const quiet = repair('{\n  note: "wait for it",\n  status: "updated",\n  count: 3,\n  done: true\n}');
  t.notOk(quiet.metadata.syntax_repairs.some((d) => d.type === 'selected_corrected_answer'), 'no retraction inside the answer');
  // a labelled line of prose after a cut answer retracts it
  const cut = repair('{"a": 1, "b": "x\nNote: the output got cut off, here is the complete JSON:\n{"a": 1, "b": "xyz"}');
  t.same(cut.repaired, { a: 1, b: 'xyz' });
  t.equal(cut.metadata.confidence, 'medium');
  // a retraction word as a label, with the new answer on its line
  const labelled = repair('{\n  a: 1,\n  b: true\n}\nUpdate: {"a": 2, "b": false}');
  t.same(labelled.repaired, { a: 2, b: false });
});

t.test('a lone value read with every repair certain is not searched: its words are data', async (t) => {
  // a comment and a string that say "incomplete" / "cut off" inside one value retract nothing
  const comment = repair('{\n  "a": 1, // this list is incomplete\n  "b": {"c": 2}\n}');
  t.same(comment.repaired, { a: 1, b: { c: 2 } });
  t.equal(comment.metadata.confidence, 'high');
  const text = repair("{\n  a: 1,\n  note: 'the output got cut off, here is the complete JSON:',\n  b: {c: 2}\n}");
  t.same(text.repaired, { a: 1, note: 'the output got cut off, here is the complete JSON:', b: { c: 2 } });
  t.equal(text.metadata.confidence, 'high');
});

t.test('a lone value left open: a line of words it took in may retract it, token repairs alone may not', async (t) => {
  // a retraction's one word as a bare name, a comment, a string over lines: each is read as a retraction
  for (const text of [
    '{"a": 1,\nTruncated:\n{"a": 1, "b": 2}',
    '{"a": 1,\nINCOMPLETE:\n{"a": 1, "b": 2}',
    '{"a": 1,\n// the output was truncated, complete JSON:\n{"a": 1, "b": 2}',
    "{'a': 1,\n# output cut off; the complete JSON:\n{'a': 1, 'b': 2}",
  ]) {
    const r = repair(text);
    t.same(r.repaired, { a: 1, b: 2 }, text);
    t.ok(r.metadata.syntax_repairs.some((d) => d.type === 'selected_corrected_answer'), `${text}: the later answer`);
  }
  // a cut pretty-printed answer with bare names, single quotes and Python literals, whose values say
  // "complete" and "truncated": one answer, cut
  const cut = repair("{\n  name: 'Ada',\n  status: 'complete',\n  flags: ['truncated', True],\n  items: [1, 2");
  t.same(cut.repaired, { name: 'Ada', status: 'complete', flags: ['truncated', true], items: [1, 2] });
  t.notOk(cut.metadata.syntax_repairs.some((d) => d.type === 'selected_corrected_answer'));
  t.ok(cut.metadata.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT'));
});

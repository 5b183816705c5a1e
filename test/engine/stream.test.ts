// Streaming: the state after every push agrees with a fresh JSON.parse of the prefix, and finalize
// answers what `repair` answers for the whole buffer.
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const documents = [
  '{"name": "Ada", "tags": ["x", "y"], "n": -12.5e3, "ok": true, "none": null, "nested": {"a": [1, {"b": "c\\"d"}]}}',
  '[1, 22, 333, "four", {"five": 5}, [], {}]',
  '  {"unicode": "h\\u00e9llo \u2603 \ud83d\ude00"}  ',
  '"just a string"',
  '12345',
  'true',
];

function parses(text: string): { ok: boolean; value: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: null };
  }
}

t.test('json_parseable and partial match JSON.parse of every prefix', async (t) => {
  for (const doc of documents) {
    for (const step of [1, 3]) {
      const stream = createStream();
      let mismatches = 0;
      for (let end = step; end < doc.length + step; end += step) {
        const state = stream.push(doc.slice(end - step, end));
        const prefix = doc.slice(0, Math.min(end, doc.length));
        const want = parses(prefix);
        if (state.json_parseable !== want.ok) mismatches++;
        else if (want.ok) t.same(state.partial, want.value);
        else t.equal(state.partial, null);
        t.equal(state.safe_to_emit, state.json_parseable);
        t.equal(state.buffered, prefix);
      }
      t.equal(mismatches, 0, `every prefix of ${doc.slice(0, 30)} (step ${step})`);
      t.same(stream.finalize(), repair(doc));
    }
  }
});

t.test('state fields while the document arrives', async (t) => {
  const s = createStream();
  let st = s.push('{"a": [1, 2');
  t.match(st, { structurally_complete: false, json_parseable: false, partial: null, brace_depth: 2, in_string: false, incomplete_token: '2' });
  t.same(st.expected_next, ['token_continuation', ',', ']']);
  st = s.push('.');
  t.equal(st.incomplete_token, '2.');
  st = s.push('5], "b": "he');
  t.match(st, { in_string: true, brace_depth: 1, incomplete_token: '"he' });
  t.same(st.expected_next, ['string', 'end_of_string']);
  st = s.push('llo"');
  // The scanner still holds the quote (an inner quote is decided by what follows), but the buffer
  // no longer ends inside a string (spec: in_string), as a JSON lexer would say of this prefix.
  t.equal(st.in_string, false, 'the string has ended where the buffer ends');
  st = s.push('}');
  t.match(st, { structurally_complete: true, json_parseable: true, brace_depth: 0, in_string: false, incomplete_token: '' });
  t.same(st.partial, { a: [1, 2.5], b: 'hello' });
  t.same(st.expected_next, ['end']);
  t.same(s.finalize().repaired, { a: [1, 2.5], b: 'hello' });
});

t.test('a literal cut mid-way is the incomplete token', async (t) => {
  const s = createStream();
  // A word right after the reply's first `[` may be a label (`[TODO] {…}`): the bracket is held
  // with it until the word's closer and what follows show which it is (docs/streaming.md).
  const st = s.push('[tru');
  t.equal(st.incomplete_token, '[tru');
  t.equal(st.brace_depth, 0);
  t.same(s.finalize().repaired, [true]);
  const inside = createStream();
  const next = inside.push('{"a": [tru');
  t.equal(next.incomplete_token, 'tru', 'inside the reply, no label is looked for');
  t.same(inside.finalize().repaired, { a: [true] });
});

t.test('a repaired stream is structurally complete but not parseable', async (t) => {
  const s = createStream();
  const st = s.push("{'a': 1}");
  t.match(st, { structurally_complete: true, json_parseable: false, partial: null });
  const r = s.finalize();
  t.same(r.repaired, { a: 1 });
  t.same(r.metadata.syntax_repairs.map((d) => d.type), ['converted_single_quotes']);
});

t.test('characters split across chunks (surrogate pairs) survive', async (t) => {
  const doc = '{"e": "\ud83d\ude00\ud83d\ude01 caf\u00e9"}';
  for (let cut = 1; cut < doc.length; cut++) {
    const s = createStream();
    s.push(doc.slice(0, cut));
    const st = s.push(doc.slice(cut));
    t.same(st.partial, JSON.parse(doc));
  }
});

t.test('finalize equals batch repair for malformed input in any chunking', async (t) => {
  const inputs = [
    'Here you go:\n```json\n{name: \'Ada\', langs: ["en", "fr",], active: True, score: .5, // c\n',
    '{"a": "x, "b": 2}', '[1 2 3', '{"a": NaN', 'callback({"a": 1});', '{"a": "line\nbreak", "b": tr',
  ];
  for (const input of inputs) {
    const want = repair(input);
    for (const size of [1, 2, 5, 64]) {
      const s = createStream();
      for (let i = 0; i < input.length; i += size) s.push(input.slice(i, i + size));
      t.same(s.finalize(), want, `${JSON.stringify(input)} in chunks of ${size}`);
    }
  }
});

t.test('echoBuffer: false leaves buffered out', async (t) => {
  const s = createStream({ echoBuffer: false });
  const state = s.push('{"a":');
  t.equal(state.buffered, undefined);
  t.notOk(JSON.stringify(state).includes('"buffered"'), 'no such key when serialized');
  t.equal(s.length, 5);
});

t.test('schema applies at finalize', async (t) => {
  const s = createStream({ schema: { type: 'object', properties: { n: { type: 'number' } } }, mode: 'lenient' });
  s.push('{"n": "4');
  s.push('2"}');
  const r = s.finalize();
  t.same(r.repaired, { n: 42 }, 'coerced once the schema pass exists');
});

t.test('valid JSON with escapes that spell LaTeX commands is parseable as it streams, as JSON.parse says — but a form feed or backspace before a letter is a raw backslash', async (t) => {
  const doc = '{"f": "angle\\theta", "g": "line\\nu", "h": "a\\beta"}';
  const read = { ...JSON.parse(doc), h: 'a\\beta' };
  const s = createStream();
  const state = s.push(doc);
  t.equal(state.json_parseable, false, 'JSON.parse would read `\\beta` otherwise');
  t.equal(state.partial, null);
  const plain = '{"f": "angle\\theta", "g": "line\\nu"}';
  t.equal(createStream().push(plain).json_parseable, true);
  t.same(s.finalize().repaired, read);
  t.same(repair(doc).repaired, read);
});

t.test('a string whose closing quote has arrived is closed, even while the scanner holds the quote', async (t) => {
  const s = createStream();
  s.push('{"a": "x"');
  const state = s.push(', ');
  t.equal(state.in_string, false);
  t.equal(state.incomplete_token, '');
  t.same(state.expected_next, ['key']);
  const root = createStream().push('"abc"');
  t.match(root, { in_string: false, structurally_complete: true, json_parseable: true, partial: 'abc' });
  t.same(createStream().push('{"a"').expected_next, [':']);
});

// Long tokens the scanner cannot decide until they end (a name, a number, an unquoted value, a
// comment): the pieces that cannot end one are kept aside, not read again (stream-work.test.ts
// counts that). Pushed in pieces, every state is the one the same prefix pushed whole gives.
const longTokens = [
  `{${'k'.repeat(600)}: 1, "b": 2}`,
  `{${'k '.repeat(300)}: 1}`,
  `{"n": ${'1'.repeat(600)}, "b": [1]}`,
  `{"n": ${'1'.repeat(600)} kg}`,
  `{"v": ${'word '.repeat(150)}x, "b": 1}`,
  `{"v": ${'wo"rd '.repeat(150)}x "b": 1}`,
  `{"v": $1${',234'.repeat(150)}, "b": 1}`,
  `[${'abc'.repeat(200)}, 2]`,
  `{"a": 1 /* ${'no*te /'.repeat(100)}*/, "b": 2}`,
  `{"a": 1 /*${'*'.repeat(600)}/ , "b": 2}`,
  `{"a": 1 // ${'note '.repeat(150)}\n, "b": 2}`,
  `{"a": 1, "c": # ${'note '.repeat(150)}\n 3}`,
  `// ${'x'.repeat(600)}\n{"a": 1}`,
];

t.test('long tokens and comments: each state is the state of the prefix pushed whole', async (t) => {
  for (const doc of longTokens) {
    for (const size of [1, 7, 255, 300]) {
      const stream = createStream();
      let same = true;
      for (let i = 0; i < doc.length && same; i += size) {
        const state = stream.push(doc.slice(i, i + size));
        const whole = createStream().push(doc.slice(0, i + size));
        same = JSON.stringify(state) === JSON.stringify(whole);
        if (!same) t.same(state, whole, `${doc.slice(0, 12)}… in ${size}-character pushes, at ${i}`);
      }
      t.ok(same, `${doc.slice(0, 12)}… in ${size}-character pushes`);
      t.same(stream.finalize(), repair(doc), 'finalize answers what repair does');
    }
  }
});

t.test('a long held token or comment is echoed as its last 256 characters', async (t) => {
  for (const [doc, cut] of [[`{${'k'.repeat(1000)}`, 1], [`{"a": 1 /* ${'x'.repeat(1000)}`, 8], [`{"n": ${'1'.repeat(1000)}`, 6]] as const) {
    const stream = createStream();
    let state = stream.push(doc.slice(0, cut));
    for (let i = cut; i < doc.length; i += 100) state = stream.push(doc.slice(i, i + 100));
    t.equal(state.incomplete_token, doc.slice(-256), `${doc.slice(0, 8)}…: its tail`);
    t.same(state.expected_next, ['token_continuation', ',', '}']);
    t.equal(state.structurally_complete, false);
  }
});

t.test('a root number longer than 256 characters is not judged until it ends', async (t) => {
  const stream = createStream();
  let state = stream.push('1'.repeat(200));
  t.equal(state.json_parseable, true, 'a short one is judged by JSON.parse');
  state = stream.push('1'.repeat(200));
  t.match(state, { json_parseable: false, partial: null, incomplete_token: '1'.repeat(256) });
  t.same(stream.finalize(), repair('1'.repeat(400)), 'finalize answers what repair does');
});

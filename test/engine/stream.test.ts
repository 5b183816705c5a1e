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
  const st = s.push('[tru');
  t.equal(st.incomplete_token, 'tru');
  t.same(s.finalize().repaired, [true]);
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

t.test('valid JSON with escapes that spell LaTeX commands is parseable as it streams, as JSON.parse says', async (t) => {
  const doc = '{"f": "angle\\theta", "g": "line\\nu", "h": "a\\beta"}';
  const s = createStream();
  const state = s.push(doc);
  t.equal(state.json_parseable, true);
  t.same(state.partial, JSON.parse(doc));
  t.same(s.finalize().repaired, JSON.parse(doc));
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

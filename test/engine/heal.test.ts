// healJson and createJsonHealer on the habits of tool-call arguments and JSON answers: what the
// client gets (canonical JSON of the repaired value, or the model's text on failure), the report,
// the cap for a cut answer, and what a stream sends before its end.
import t from 'tap';
import { createJsonHealer, healJson, type HealResult } from '../../engine/index.js';

const WEATHER = {
  type: 'object',
  properties: { location: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
  required: ['location'],
};
const NO_PARAMS = { type: 'object', properties: {} };

/** The deltas a stream sends for `text` cut every `size` characters, and its finish. */
function streamed(text: string, size: number, schema?: object, truncated?: boolean): { deltas: string[]; result: HealResult; joined: string } {
  const healer = createJsonHealer({ schema });
  const deltas: string[] = [];
  for (let k = 0; k < text.length; k += size) deltas.push(healer.push(text.slice(k, k + size)));
  const end = healer.finish({ truncated });
  deltas.push(end.delta);
  return { deltas, result: end.result, joined: deltas.join('') };
}

t.test('valid JSON: unchanged value, canonical text, high, not repaired', async (t) => {
  const r = healJson('{\n  "location": "Paris",\n  "days": 3\n}');
  t.equal(r.text, '{"location":"Paris","days":3}', 'whitespace is normalised');
  t.same(r.report, { success: true, confidence: 'high', was_repaired: false, syntax_repairs: [], schema_repairs: [], warnings: [], errors: [] });
  t.equal(healJson('{"location":"Paris"}', { schema: WEATHER }).report.confidence, 'high');
});

t.test('tool-call habits are repaired by the engine and reported', async (t) => {
  const cases: Array<[string, object | undefined, string, string]> = [
    ['{"location": "Paris"}<|call|>', undefined, '{"location":"Paris"}', 'stripped_trailing_text'],
    ['{"location": "Paris"}<|endoftext|>', WEATHER, '{"location":"Paris"}', 'stripped_trailing_text'],
    ['{location": "Paris"}', undefined, '{"location":"Paris"}', 'quoted_unquoted_keys'],
    ['{"a": None, "b": True, "c": False}', undefined, '{"a":null,"b":true,"c":false}', 'replaced_python_literal'],
    ['{"location": "Paris", "days": 3,}', WEATHER, '{"location":"Paris","days":3}', 'removed_trailing_comma'],
    ['{"location": "Paris", "days": 3', undefined, '{"location":"Paris","days":3}', 'closed_object_bracket'],
    // With a schema, the number the cut fell inside is dropped (`3` may have been `30`): docs/schema.md "Cut replies".
    ['{"location": "Paris", "days": 3', WEATHER, '{"location":"Paris"}', 'removed_truncated_member'],
  ];
  for (const [text, schema, want, type] of cases) {
    const r = healJson(text, { schema });
    t.equal(r.text, want, text);
    t.ok(r.report.success && r.report.was_repaired, `${text}: success, repaired`);
    t.ok(r.report.syntax_repairs.some((d) => d.type === type), `${text}: ${type} reported`);
  }
});

t.test('arguments double-encoded as a JSON string', async (t) => {
  const text = JSON.stringify(JSON.stringify({ location: 'Paris', days: 2 }));
  const withSchema = healJson(text, { schema: WEATHER });
  t.equal(withSchema.text, '{"location":"Paris","days":2}', 'an object schema decodes them');
  t.equal(withSchema.report.confidence, 'medium');
  t.ok(withSchema.report.schema_repairs.some((d) => d.type === 'type_coercion'));
  t.equal(healJson(text).text, text, 'without a schema the string is the value');
});

t.test('schema repairs: coercion, enum, undeclared member', async (t) => {
  const r = healJson('{"location": "Paris", "unit": "Celsius", "days": "3", "extra": 1}', { schema: WEATHER });
  t.equal(r.text, '{"location":"Paris","unit":"celsius","days":3}');
  t.same(r.report.schema_repairs.map((d) => d.type).sort(), ['enum_coercion', 'removed_extra_field', 'type_coercion']);
  t.equal(r.report.confidence, 'low', 'enum coercion is low');
});

t.test('a failed repair passes the text through untouched and says so', async (t) => {
  for (const [text, schema] of [['{"days": "many"}', WEATHER], ['no json here', undefined], ['{"unit":"celsius","days":2', WEATHER]] as const) {
    const r = healJson(text, { schema });
    t.equal(r.text, text, `${text}: untouched`);
    t.equal(r.report.success, false);
    t.equal(r.report.confidence, 'low');
    t.equal(r.report.was_repaired, false);
    t.ok(r.report.errors.length > 0, 'errors say why');
    t.equal(streamed(text, 3, schema).joined, text, `${text}: the stream sends the same`);
  }
});

t.test('empty arguments', async (t) => {
  const none = healJson('', { schema: NO_PARAMS });
  t.equal(none.text, '{}', 'a schema without required members: {}');
  t.equal(none.report.confidence, 'medium');
  t.equal(none.report.syntax_repairs[0]?.type, 'empty_input_as_object');
  t.equal(healJson('  \n', { schema: { type: 'object' } }).text, '{}', 'blank too');
  const required = healJson('', { schema: WEATHER });
  t.equal(required.report.success, false, 'required members: a failure');
  t.equal(required.text, '');
  t.equal(healJson('').report.success, false, 'no schema: a failure');
  t.equal(streamed('', 1, NO_PARAMS).joined, '{}');
});

t.test('truncated: never high, with TRUNCATED_OUTPUT', async (t) => {
  const whole = healJson('{"location":"Paris"}', { truncated: true });
  t.equal(whole.report.confidence, 'medium', 'valid as written, but cut: medium');
  t.equal(whole.report.warnings.filter((w) => w.code === 'TRUNCATED_OUTPUT').length, 1);
  const cut = healJson('{"location": "Paris", "days": 3', { schema: WEATHER, truncated: true });
  t.equal(cut.text, '{"location":"Paris"}', 'the cut member is dropped');
  t.equal(cut.report.confidence, 'medium');
  // The required member the cut fell inside is dropped: the arguments fail rather than name "Par".
  t.equal(healJson('{"location": "Par', { schema: WEATHER, truncated: true }).report.success, false);
  t.equal(cut.report.warnings.filter((w) => w.code === 'TRUNCATED_OUTPUT').length, 1, 'the engine\'s own warning, once');
  t.equal(healJson('{"location":"Paris"}').report.confidence, 'high', 'not cut: high');
  t.equal(streamed('{"location":"Paris"}', 4, undefined, true).result.report.confidence, 'medium', 'finish({truncated}) caps too');
});

t.test('a stream sends the canonical text as the model writes it', async (t) => {
  const compact = '{"location":"Paris, France","unit":"celsius","days":3}';
  const plain = streamed(compact, 4);
  t.equal(plain.joined, compact);
  t.ok(plain.deltas.slice(0, -1).join('').length >= compact.length - 1, 'all but the root closer before the end');
  t.equal(plain.deltas[plain.deltas.length - 1], '}', 'the root closer comes with finish');
  const spaced = '{"location": "Paris, France", "unit": "celsius", "days": 3}';
  const s = streamed(spaced, 4);
  t.equal(s.joined, compact, 'whitespace normalised');
  t.ok(s.deltas.slice(0, -1).join('').startsWith('{"location":"Paris, France","unit":"celsius"'), 'members flow before the end');
  const schema = streamed(compact, 4, WEATHER);
  t.ok(schema.deltas.slice(0, -1).join('').startsWith('{"location":"Paris, France","unit":"celsius"'), 'schema, compact text: members flow');
  const spacedSchema = streamed(spaced, 4, WEATHER);
  t.equal(spacedSchema.deltas.slice(0, -1).join(''), '{"location":', 'schema, spaced text: only what is also the model\'s own text');
  t.equal(spacedSchema.joined, compact);
  t.equal(streamed('Sure! {"a": 1}', 2).deltas.slice(0, -1).join(''), '', 'prose first: everything at the end');
});

t.test('a string member grows as the model writes it; an element, an enum, a coerced value wait to be whole', async (t) => {
  const text = '{"query": "weather in Paris tomorrow", "tags": ["a", "b"], "unit": "celsius", "days": "3"}';
  const schema = { type: 'object', properties: { query: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } } };
  for (const opts of [undefined, schema]) {
    const healer = createJsonHealer({ schema: opts });
    let sent = '';
    const seen: string[] = [];
    for (const ch of text) {
      sent += healer.push(ch);
      seen.push(sent);
    }
    const end = healer.finish();
    sent += end.delta;
    t.equal(sent, healJson(text, { schema: opts }).text, 'the same text as the whole reply');
    // With a schema only what is also the model's own text is sent, and its spaces depart from it.
    if (opts !== undefined) continue;
    t.ok(seen.includes('{"query":"weather in'), 'the string shows before its closing quote');
    t.notOk(seen.some((p) => p.endsWith('["a')), 'an element appears whole');
  }
  const compactSchema = streamed('{"query":"weather in Paris tomorrow","unit":"celsius","days":"3"}', 1, schema);
  const prefixes = compactSchema.deltas.map((_, k) => compactSchema.deltas.slice(0, k + 1).join(''));
  t.ok(prefixes.includes('{"query":"weather in'), 'with a schema, compact text: the string grows');
  t.notOk(prefixes.some((p) => p.endsWith('"cel') || p.endsWith('"days":"')), 'an enum and a coerced string wait to be whole');
  t.equal(compactSchema.joined, '{"query":"weather in Paris tomorrow","unit":"celsius","days":3}');
});

t.test('a string written as it grew and then read otherwise: the same text however the reply was cut', async (t) => {
  // A repair inside the string (an inner quote, a raw line break, a raw backslash after a decoded
  // escape) or after it: what was committed is the string up to the first repair, in every cutting.
  for (const text of [
    '{"note": "he said "hi" to me", "n": 1}',
    '{"note": "line one\nline two", "n": 1}',
    '{"tex": "x \\neq y \\leq z"}',
    '{"key": "```json {"key": [{"key1": 1},{"key2": 2}]}```"}',
    '{"a": "b": 1}',
    '{"a": "x" + "y", "b": 2}',
    '{"a": "ok", "5": "moved"}',
    '{"a": "cut here',
  ]) {
    const whole = healJson(text).text;
    for (const size of [1, 2, 3, 5, 8, 1000]) {
      const s = streamed(text, size);
      t.equal(s.joined, whole, `${JSON.stringify(text)} in pieces of ${size}`);
      let sent = '';
      for (const d of s.deltas) {
        sent += d;
        if (!whole.startsWith(sent)) t.fail(`sent ${sent}, not a prefix of ${whole}`);
      }
    }
  }
});

t.test('what a stream began is kept when the whole reply reads otherwise', async (t) => {
  const r = healJson('{"a": 1}\n{"a": 2}');
  t.equal(r.text, '{"a":1}', 'the first value');
  t.equal(r.report.confidence, 'low');
  t.ok(r.report.warnings.some((w) => w.code === 'STREAMED_PREFIX_KEPT'));
  t.equal(streamed('{"a": 1}\n{"a": 2}', 1).joined, '{"a":1}');
  // With a schema the engine picks the value that fits (the second: it has the required `b`), but
  // a stream has sent the first's beginning: a failure, and the model's text.
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['b'] };
  const s = healJson('{"a":1}{"b":2}', { schema });
  t.equal(s.report.success, false, 'with a schema: a failure');
  t.equal(s.text, '{"a":1}{"b":2}', 'and the model\'s text');
  t.equal(streamed('{"a":1}{"b":2}', 2, schema).joined, '{"a":1}{"b":2}');
  t.equal(healJson('{"a":1}{"a":2}', { schema: { type: 'object', properties: { a: { type: 'number' } } } }).text, '{"a":1}', 'the first fits: it stands');
});

t.test('names JSON.stringify would move, names given twice: the value, members in the order written', async (t) => {
  for (const [text, want] of [
    ['{"name": "x", "2024": 5}', '{"name":"x","2024":5}'],
    ['{"a": 1, "a": 2}', '{"a":1,"a":2}'],
    ['{"o": {"a": 1, "7": 2, "b": [1, {"c": 1, "c": 3}]}}', '{"o":{"a":1,"7":2,"b":[1,{"c":3}]}}'],
  ] as const) {
    const r = healJson(text);
    t.equal(r.text, want, text);
    t.same(JSON.parse(r.text), JSON.parse(text), `${text}: parses to the value JSON.parse reads`);
    t.equal(r.report.confidence, 'high');
    t.equal(streamed(text, 1).joined, want, `${text}: streamed alike`);
  }
  t.equal(healJson('{"2024": 5, "name": "x"}').text, '{"2024":5,"name":"x"}', 'first: canonical as it is');
});

t.test('nesting deeper than the engine reads: the property holds, the report says what happened', async (t) => {
  const text = '{"a": 1, "b": ' + '['.repeat(1005);
  const plain = healJson(text);
  t.match(plain.text, /^\{"a":1,"b":\[{900,}\]{900,}\}$/, 'what a stream had sent, closed');
  t.doesNotThrow(() => JSON.parse(plain.text));
  t.equal(plain.report.confidence, 'low');
  t.ok(plain.report.warnings.some((w) => w.code === 'STREAMED_PREFIX_KEPT'));
  const schema = healJson(text, { schema: { type: 'object' } });
  t.equal(schema.text, text, 'with a schema: the text untouched');
  t.equal(schema.report.success, false);
  for (const size of [1, 5, 100]) {
    t.equal(streamed(text, size).joined, plain.text, `${size}-character deltas`);
    t.equal(streamed(text, size, { type: 'object' }).joined, text, `${size}-character deltas, schema`);
  }
});

t.test('push after finish and finish twice throw', async (t) => {
  const h = createJsonHealer();
  h.push('{');
  h.finish();
  t.throws(() => h.push('x'));
  t.throws(() => h.finish());
});

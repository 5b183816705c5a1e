// No repair loses a value's content silently: a `"""…"""` string or a code block used as a value is
// read as that string, and any reading that leaves words of the JSON out says so at low confidence.
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261127);

t.test('a triple-quoted string or a code block as a value is one string', async (t) => {
  const rows: Array<[string, unknown, string, string]> = [
    // [input, value, detail confidence, why]
    ['{"code": ```python\nprint("hi")\n```}', { code: 'print("hi")' }, 'medium', 'tag dropped'],
    ['{"code": ```js\n    if (a) {\n      b();\n    }\n```, "n": 2}', { code: 'if (a) {\n  b();\n}', n: 2 }, 'medium', 'shared indentation taken off'],
    ['{"doc": """\n    First line.\n      Indented.\n    Last.\n"""}', { doc: 'First line.\n  Indented.\nLast.' }, 'medium', 'dedent'],
    ['{"a": """he said "hi" today"""}', { a: 'he said "hi" today' }, 'high', 'inner quotes kept'],
    ['["""one""", """two\nlines"""]', ['one', 'two\nlines'], 'high', 'array items'],
    ["{'a': '''it's\n  fine'''}", { a: "it's\n  fine" }, 'high', "Python's other block quote"],
    ['```json\n{"code": ```sql\nSELECT 1\n```}\n```', { code: 'SELECT 1' }, 'medium', 'inside a fenced reply'],
    ['{"a": ```\n{"b": 1}\n```}', { a: '{"b": 1}' }, 'high', 'JSON text in a block stays text'],
  ];
  for (const [input, value, confidence, why] of rows) {
    const r = repair(input);
    t.ok(r.success, why);
    t.same(r.repaired, value, why);
    const detail = r.metadata.syntax_repairs.find((d) => d.type === 'converted_multiline_string');
    t.equal(detail?.confidence, confidence, `${why}: converted_multiline_string at ${confidence}`);
  }
});

t.test('the reply fenced as a whole still closes at its fence', async (t) => {
  // A truncated fenced reply: the ``` where a value goes is the fence's close, not a block.
  const r = repair('```json\n{"a": 1, "b": \n```');
  t.ok(r.success);
  t.same(r.repaired, { a: 1 });
  t.same(repair('[```json\n{"a": 1}\n```]').repaired, [{ a: 1 }]);
});

t.test('a block cut off by the end of the reply keeps its text', async (t) => {
  const r = repair('{"a": """first\n  second');
  t.same(r.repaired, { a: 'first\n  second' });
  t.ok(r.metadata.syntax_repairs.some((d) => d.type === 'closed_string'));
});

t.test('streamed in small pushes, a block answers what batch does', async (t) => {
  for (const input of ['{"code": ```python\ndef f():\n    return 1\n```, "x": """a\n  b"""}', '["""q""", 1]']) {
    for (const size of [1, 2, 5]) {
      const stream = createStream();
      for (let k = 0; k < input.length; k += size) stream.push(input.slice(k, k + size));
      t.same(stream.finalize(), repair(input), `${size}-character pushes`);
    }
  }
});

t.test('words left out of the value are reported at low confidence', async (t) => {
  // The first string's missing quote swallows the next member's name; the scan then ends where the
  // rest of the object is not in the value.
  const r = repair('{"a": "one\n"b": \'two three\'\n"c": ```\nfour\n```\n"d": "five six"');
  t.ok(r.success);
  t.notMatch(JSON.stringify(r.repaired), /four/, 'this reading leaves "four" out');
  const detail = r.metadata.syntax_repairs.find((d) => d.type === 'dropped_value_text');
  t.equal(detail?.confidence, 'low', 'reported as dropped_value_text, low');
  t.equal(r.metadata.confidence, 'low');
});

t.test('property: a success never drops a word of a value silently', async (t) => {
  const word = fc.integer({ min: 100, max: 999 }).map((n) => `w${n}`);
  const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((a) => a.join(' '));
  const quoting = fc.constantFrom('json', 'single', 'triple', 'fence', 'tagged', 'smart', 'bare', 'unclosed', 'backtick');
  const quote = (v: string, how: string): string => {
    switch (how) {
      case 'json': return JSON.stringify(v);
      case 'single': return `'${v}'`;
      case 'triple': return `"""${v}"""`;
      case 'fence': return '```\n' + v + '\n```';
      case 'tagged': return '```text\n' + v + '\n```';
      case 'smart': return `“${v}”`;
      case 'unclosed': return `"${v}`;
      case 'backtick': return '`' + v + '`';
      default: return v;
    }
  };
  const member = fc.tuple(fc.integer({ min: 1000, max: 9999 }), words, quoting, fc.boolean())
    .map(([k, v, how, bareName]) => ({ key: k, text: `${bareName ? `k${k}` : `"k${k}"`}: ${quote(v, how)}` }));
  const doc = fc.tuple(fc.uniqueArray(member, { minLength: 1, maxLength: 4, selector: (m) => m.key }),
    fc.constantFrom(', ', ',\n', '\n', ' '), fc.boolean(), fc.boolean())
    .map(([ms, sep, rows, closed]) => rows
      ? '[' + ms.map((m) => `{${m.text}}`).join(sep) + (closed ? ']' : '')
      : '{' + ms.map((m) => m.text).join(sep) + (closed ? '}' : ''));
  fc.assert(fc.property(doc, (input) => {
    const r = repair(input);
    if (!r.success) return true;
    const out = JSON.stringify(r.repaired);
    const missing = (input.match(/w\d+/g) ?? []).filter((w) => !out.includes(w));
    return missing.length === 0 || r.metadata.syntax_repairs.some((d) => d.type === 'dropped_value_text' && d.confidence === 'low');
  }), { numRuns: 5000, seed: SEED });
  t.pass('no silent drop');
});

t.test('a sentence after the closing fence is prose after the block, not dropped value text', async (t) => {
  const rows = [
    '```json\n{name: "Ann"\n```\nAnything else?',
    '```json\n{"name": "Ann", "tags": ["a"\n```\nAnything else?',
    'Here it is:\n```json\n{"a": [x y]}\n```\nAnything else?',
  ];
  for (const input of rows) {
    const r = repair(input);
    t.ok(r.success, input);
    t.notOk(r.metadata.syntax_repairs.some((d) => d.type === 'dropped_value_text'), `${JSON.stringify(input)}: no dropped_value_text`);
    const s = createStream({});
    for (let i = 0; i < input.length; i += 5) s.push(input.slice(i, i + 5));
    t.same(s.finalize(), r, 'finalize answers what repair does');
  }
  // The sentence still counts when it is inside the value's span (no fence closes it).
  const inside = repair('{"a": [x y] Anything else?}');
  t.ok(inside.metadata.syntax_repairs.some((d) => d.type === 'dropped_value_text') || JSON.stringify(inside.repaired).includes('Anything'),
    'words inside the value are still checked');
});

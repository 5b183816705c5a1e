// Rules 7 and 8, where other libraries' suites read a reply as a careful reader does: `key: value`
// lines before a brace are data (never stripped at high); comments around a `+` still join the
// strings; a letter glued to a quoted string is no unbalanced quote; an HTML comment in a container
// is a comment; `\`` in a backtick string is a backtick; an array's early `]` invents no nesting;
// several values with one answered warn VALUES_LEFT_OUT; a code block's info string of several words
// is not content, its dedent follows what a reader sees, and content changed is never high.
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const key = fc.stringMatching(/^[a-z]{1,6}$/);
const word = fc.stringMatching(/^[a-z]{1,8}$/);
const scalar = fc.oneof(fc.integer({ min: -999, max: 99999 }), fc.constantFrom(true, false, null), fc.stringMatching(/^[a-z ]{1,12}$/));
const obj = fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 4 });

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function streamedEqual(text: string, size: number): boolean {
  const s = createStream();
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
  return same(s.finalize(), repair(text));
}

t.test('key: value lines before a brace are data: never stripped at high', (t) => {
  const line = fc.tuple(key, fc.oneof(fc.integer({ min: 0, max: 999 }).map(String), fc.constantFrom('true', 'None', '"Paris"', "'x'")));
  fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 3 }), obj, (lines, value) => {
    const text = `${lines.map(([k, v]) => `${k}: ${v}`).join('\n')}\n${JSON.stringify(value)}`;
    const r = repair(text);
    return r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('one line of `name: value` before a brace is data too', async (t) => {
  for (const line of ['name: John', 'status: ok', 'city: "Paris"', 'age: 30']) {
    const r = repair(`${line}\n{"x": 1}`);
    t.not(r.metadata.confidence, 'high', line);
    t.ok(r.metadata.warnings.some((w) => w.code === 'VALUES_LEFT_OUT'), `${line}: the left-out line is named`);
  }
  // an introduction is prose: nothing left out
  for (const intro of ['Here is the result:', 'Short answer: yes', 'Sure! Here it is.']) {
    const r = repair(`${intro}\n{"x": 1}`);
    t.equal(r.metadata.confidence, 'high', intro);
  }
});

t.test('`key: value` lines closed by a `}` are one object whose `{` was left out', (t) => {
  const value = fc.oneof(fc.integer({ min: 0, max: 999 }).map((n) => [String(n), n] as const), fc.constantFrom(['true', true] as const, ['"Paris"', 'Paris'] as const, ['John', 'John'] as const));
  fc.assert(fc.property(fc.uniqueArray(fc.tuple(key, value), { minLength: 1, maxLength: 4, selector: ([k]) => k }), fc.constantFrom('', 'Here it is:\n'), fc.boolean(),
    (members, intro, commas) => {
      const text = `${intro}${members.map(([k, [v]]) => `${k}: ${v}`).join(commas ? ',\n' : '\n')}\n}`;
      const r = repair(text);
      return r.success && same(r.repaired, Object.fromEntries(members.map(([k, [, v]]) => [k, v]))) && r.metadata.confidence !== 'high' &&
        streamedEqual(text, 3);
    }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('comments around a `+` still join the strings', (t) => {
  const around = fc.constantFrom('', ' ', ' /* c */ ', ' // note\n', '\n# note\n', '/**/', ' <!-- c --> ');
  fc.assert(fc.property(word, word, around, around, (a, b, before, after) => {
    const text = `{"k": "${a}"${before}+${after}"${b}"}`;
    const r = repair(text);
    return r.success && same(r.repaired, { k: a + b }) && streamedEqual(text, 3);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('a letter glued to a quoted value is not an unbalanced quote', (t) => {
  const rest = fc.dictionary(fc.stringMatching(/^[l-z]{2,6}$/), scalar, { minKeys: 1, maxKeys: 3 });
  fc.assert(fc.property(fc.constantFrom('h', 'x', 'u', 'U', 'b', 'r'), fc.stringMatching(/^[a-z ]{1,10}$/), fc.constantFrom('"', "'"), rest,
    (letter, s, q, rest) => {
      const text = `{"k": ${letter}${q}${s}${q}, ${JSON.stringify(rest).slice(1)}`;
      const r = repair(text);
      // the string is read whole and the members after it are kept
      return r.success && (r.repaired as Record<string, unknown>).k === s &&
        Object.entries(rest).every(([k, v]) => same((r.repaired as Record<string, unknown>)[k], v));
    }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('an HTML comment inside a container is a comment (medium: markup is foreign to JSON)', (t) => {
  fc.assert(fc.property(obj, fc.stringMatching(/^[a-z ]{0,12}$/), fc.nat(), fc.boolean(), (value, note, at, asArray) => {
    const parts = asArray ? Object.values(value).map((v) => JSON.stringify(v)) : Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    const k = at % (parts.length + 1);
    const withComment = [...parts.slice(0, k).map((p) => p + ','), `<!--${note}-->`, ...parts.slice(k).map((p, n) => p + (k + n < parts.length - 1 ? ',' : ''))];
    const text = asArray ? `[${withComment.join(' ')}]` : `{${withComment.join(' ')}}`;
    const r = repair(text);
    const want = asArray ? Object.values(value) : value;
    return r.success && same(r.repaired, want) && r.metadata.confidence !== 'low' && streamedEqual(text, 2);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('an escaped backtick inside a backtick string is a backtick', (t) => {
  fc.assert(fc.property(fc.array(fc.constantFrom('a', ' ', '`', 'b', '"'), { minLength: 1, maxLength: 12 }), (chars) => {
    const s = chars.join('');
    const text = `{"k": \`${s.replace(/`/g, '\\`')}\`}`;
    const r = repair(text);
    return r.success && same(r.repaired, { k: s });
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test("an array's early `]` invents no nesting", (t) => {
  const items = fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 3 });
  fc.assert(fc.property(items, items, fc.boolean(), (a, b, bracketed) => {
    const tail = bracketed ? `[${b.join(', ')}]` : `${b[0]}]`;
    const text = `{"k": [${a.join(', ')}], ${tail}, "z": 1}`;
    const r = repair(text);
    const want = { k: [...a, ...(bracketed ? b : [b[0]])], z: 1 };
    return r.success && same(r.repaired, want) && r.metadata.confidence === 'medium';
  }), { seed: SEED, numRuns: 200 });
  t.test("the root array's early `]`: the items after its comma join it", (t) => {
    fc.assert(fc.property(items, items, fc.constantFrom('', '\n'), (a, b, end) => {
      const text = `[${a.join(', ')}], ${b.join(', ')}]${end}`;
      const r = repair(text);
      return r.success && same(r.repaired, [...a, ...b]) && r.metadata.confidence === 'medium' && streamedEqual(text, 2);
    }), { seed: SEED, numRuns: 150 });
    // without the `]` the items may be a value of their own: dropped, and said
    const r = repair('[1, 2], 3');
    t.not(r.metadata.confidence, 'high');
    t.end();
  });
  t.test('rows of an array: a bracket of scalars after the early closer is one more row', async (t) => {
    const r = repair('{"rows": [["a", "b"], ["c", "d"]], ["e", "f"]]}');
    t.same(r.repaired, { rows: [['a', 'b'], ['c', 'd'], ['e', 'f']] });
    t.equal(r.metadata.confidence, 'medium');
  });
  t.end();
});

t.test('several values, one answered: VALUES_LEFT_OUT says another was left out', (t) => {
  const shape = fc.constantFrom(
    (a: string, b: string) => `Here: ${a} and also ${b}`, (a: string, b: string) => `${a} or maybe ${b}`,
    (a: string, b: string) => `First: ${a}, second:\n${b}`,
  );
  fc.assert(fc.property(obj, obj, shape, (a, b, f) => {
    const r = repair(f(JSON.stringify(a), JSON.stringify(b)));
    return r.success && r.metadata.confidence !== 'high' && r.metadata.warnings.some((w) => w.code === 'VALUES_LEFT_OUT');
  }), { seed: SEED, numRuns: 150 });
  const one = repair('Here is the JSON: {"a": 1} hope this helps');
  t.notOk(one.metadata.warnings.some((w) => w.code === 'VALUES_LEFT_OUT'), 'one value: no warning');
  t.end();
});

t.test('bracketed words in prose or a regex are not the array', (t) => {
  const prose = fc.constantFrom('The regex [a-z]+ matches words.', 'Use [brackets] like this:', 'Pattern ^[A-Z]{2}\\d+$ is fine, so', 'See [1] and [docs] for details:', 'See [here]', 'Fields marked [optional] may be omitted, e.g. [see note]');
  fc.assert(fc.property(prose, obj, (p, value) => {
    const r = repair(`${p} ${JSON.stringify(value)}`);
    return r.success && same(r.repaired, value);
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

// --- rule 8: triple-backtick values -------------------------------------------------------------

const codeLine = fc.stringMatching(/^[a-z]{1,6}(?: [a-z=()]{1,4}){0,3}$/);
const indentUnit = fc.constantFrom('', '  ', '    ', '\t');

t.test('an info string of several words is not content', (t) => {
  const info = fc.constantFrom('typescript main.ts', 'python title="x.py"', 'js copy', 'ts src/app.ts', 'json5 config.json5');
  fc.assert(fc.property(info, fc.array(codeLine, { minLength: 1, maxLength: 4 }), (tag, lines) => {
    const body = lines.join('\n');
    const r = repair(`{"code": \`\`\`${tag}\n${body}\n\`\`\`}`);
    return r.success && same(r.repaired, { code: body }) && r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('dedent follows what a reader sees; content changed is never high', (t) => {
  const blank = fc.constantFrom('', ' ', '   ', '\t', '      ');
  const line = fc.oneof({ weight: 3, arbitrary: fc.tuple(indentUnit, codeLine).map(([i, l]) => i + l) }, { weight: 1, arbitrary: blank });
  fc.assert(fc.property(indentUnit, fc.array(line, { minLength: 1, maxLength: 5 }).filter((ls) => ls.some((l) => l.trim() !== '')), (margin, lines) => {
    const written = lines.map((l) => (l.trim() === '' ? l : margin + l));
    const text = `{"code": \`\`\`\n${written.join('\n')}\n\`\`\`}`;
    const r = repair(text);
    if (!r.success) return false;
    const got = (r.repaired as { code: string }).code;
    // What the engine must keep: every non-blank line's text after the indentation they all share.
    const kept = got.split('\n');
    const nonBlank = written.filter((l) => l.trim() !== '');
    if (kept.filter((l) => l.trim() !== '').length !== nonBlank.length) return false;
    for (const l of kept) if (l.trim() === '' && l !== '' && got !== written.join('\n')) return false; // a blank line stays empty once dedented
    // high means the block's text is as written
    const asWritten = written.join('\n');
    if (r.metadata.confidence === 'high' && got !== asWritten) return false;
    return streamedEqual(text, 7);
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

// Rule 6, "Python as Python reads it": a value written as Python's repr writes it — tuples for
// arrays (`(1, 2)`, `(1,)`, `()`), `u'…'`/`U"…"` prefixes, `\xHH` escapes, `True`/`None` — in names
// and values, reads as the value it was written from. `u''` and tuples are what Python means, so
// high; `b''`/`r''` (bytes, raw strings) read as strings are medium; `("x")` is grouping (medium).
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';
import { createRandom } from '../../support/random.js';
import { check } from '../helpers/heal-check.js';
import { run, runViolation } from '../helpers/preview-run.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const text = fc.stringMatching(/^[a-zA-Z0-9 éüñ-]{0,10}$/);
const scalar = fc.oneof(fc.integer({ min: -999, max: 99999 }), fc.constantFrom(true, false, null), text);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, scalar, tie('list'), tie('dict')),
  list: fc.array(tie('node'), { maxLength: 3 }),
  dict: fc.dictionary(fc.stringMatching(/^[a-zé]{1,6}$/), tie('node'), { maxKeys: 3 }),
})).node;

interface Style { tuples: boolean; prefix: string; quote: string; hex: boolean }
const style = fc.record({
  tuples: fc.boolean(), prefix: fc.constantFrom('', 'u', 'U'), quote: fc.constantFrom("'", '"'), hex: fc.boolean(),
});

/** A string as Python's repr might write it: a prefix, a quote, `\xHH` for characters past ASCII. */
function pyString(s: string, st: Style): string {
  let body = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch === st.quote || ch === '\\') body += '\\' + ch;
    else if (st.hex && code > 0x7f && code <= 0xff) body += '\\x' + code.toString(16).padStart(2, '0');
    else body += ch;
  }
  return `${st.prefix}${st.quote}${body}${st.quote}`;
}

/** The value written as Python would (a list as a tuple when `tuples`). */
function py(v: unknown, st: Style): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return pyString(v, st);
  if (Array.isArray(v)) {
    const items = v.map((x) => py(x, st));
    if (!st.tuples) return `[${items.join(', ')}]`;
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  return `{${Object.entries(v as object).map(([k, x]) => `${pyString(k, st)}: ${py(x, st)}`).join(', ')}}`;
}

t.test('Python-written values read as Python reads them, at high when only u-prefixes and tuples were read', (t) => {
  fc.assert(fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), value, { minKeys: 1, maxKeys: 4 }), style, (v, st) => {
    const input = py(v, st);
    const r = repair(input);
    if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify(v)) return false;
    // `\xHH` in a double-quoted string may be a path (`C:\xfe`): medium there, by design
    if (!(st.hex && st.quote === '"' && /\\x/.test(input)) && r.metadata.confidence !== 'high') return false;
    const s = createStream();
    for (let i = 0; i < input.length; i += 4) s.push(input.slice(i, i + 4));
    return JSON.stringify(s.finalize()) === JSON.stringify(r);
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('a tuple as the whole reply (alone, or fenced) is an array', (t) => {
  fc.assert(fc.property(fc.array(scalar, { minLength: 2, maxLength: 5 }), fc.boolean(), (items, fenced) => {
    const tuple = py(items, { tuples: true, prefix: '', quote: "'", hex: false });
    const input = fenced ? `Here it is:\n\`\`\`python\n${tuple}\n\`\`\`` : tuple;
    const r = repair(input);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(items);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('bytes and raw prefixes are strings, never high', (t) => {
  fc.assert(fc.property(fc.stringMatching(/^[a-z ]{1,10}$/), fc.constantFrom('b', 'B', 'r', 'R', 'rb', 'br', 'Rb'), fc.constantFrom("'", '"'), fc.boolean(),
    (s, prefix, q, asKey) => {
      const str = `${prefix}${q}${s}${q}`;
      const r = repair(asKey ? `{${str}: 1}` : `{"k": ${str}}`);
      const want = asKey ? { [s]: 1 } : { k: s };
      return r.success && JSON.stringify(r.repaired) === JSON.stringify(want) && r.metadata.confidence !== 'high';
    }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('one value in parentheses is that value (grouping), at medium', (t) => {
  fc.assert(fc.property(scalar, (v) => {
    const r = repair(`{"k": (${JSON.stringify(v)})}`);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify({ k: v }) && r.metadata.confidence === 'medium';
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

t.test('parenthesised prose is not a tuple', (t) => {
  for (const input of ['(1) Keep this note.\n{"a": 1}', '(see below)\n{"a": 1}', '(Note: values are estimates) {"a": 1}']) {
    t.same(repair(input).repaired, { a: 1 }, input);
  }
  t.end();
});

// Python's set literal: braces whose items are values with no colon (`{1, 2}`, `{'a', 'b'}`,
// `set()`) read as the array of the items in order, at medium (`converted_set_to_array`: JSON has no
// sets, and the braces say object). The first item decides: a quoted string, a number or a literal
// followed by `,` or `}`.
const setItem = fc.oneof(
  fc.integer({ min: -9999, max: 99999 }),
  fc.double({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true }).map((x) => Math.round(x * 100) / 100),
  fc.constantFrom(true, false, null),
  fc.stringMatching(/^[a-zA-Z0-9 _éü-]{0,10}$/),
);
/** How a set is written: its quote, its blanks, a trailing comma, one item a line. */
const layout = fc.record({ quote: fc.constantFrom("'", '"'), space: fc.constantFrom('', ' ', '  '), lines: fc.boolean(), trailing: fc.boolean() });
type Layout = { quote: string; space: string; lines: boolean; trailing: boolean };

/** A set written as Python would (`set()` when empty), items in `l`'s layout. */
function pySet(items: unknown[], l: Layout): string {
  if (items.length === 0) return 'set()';
  const st: Style = { tuples: false, prefix: '', quote: l.quote, hex: false };
  const sep = l.lines ? ',\n  ' : `,${l.space || ' '}`;
  const body = items.map((x) => py(x, st)).join(sep) + (l.trailing ? ',' : '');
  return l.lines ? `{\n  ${body}\n}` : `{${l.space}${body}${l.space}}`;
}

const uniqueItems = fc.uniqueArray(setItem, { maxLength: 6, selector: (x) => JSON.stringify(x) });

/** Random cut points for a text of `n` characters. */
const cutsOf = (n: number, seed: number): number[] => {
  const random = createRandom(seed);
  return Array.from({ length: 1 + random.int(6) }, () => random.int(n + 1)).sort((a, b) => a - b);
};

/** `text` pushed in the pieces `cuts` makes: the progressive preview keeps its guarantees, finalize answers as repair(). */
function streamedLikeBatch(text: string, cuts: number[]): string | null {
  const pieces: string[] = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    pieces.push(text.slice(from, at));
    from = at;
  }
  const r = run(pieces);
  // `set()` alone is a root value, shown only once the reply has ended (as `42` is)
  const v = runViolation(r, text !== 'set()');
  if (v !== null) return `${JSON.stringify(text)} in ${JSON.stringify(pieces)}: ${v}`;
  if (JSON.stringify(r.final) !== JSON.stringify(repair(text).repaired)) return `${JSON.stringify(text)}: finalize is not repair()`;
  check(text, undefined, cuts);
  return null;
}

/** `input` reads as `want` at `confidence`, streamed as in batch (cut where `seed` says); throws otherwise. */
function readsAs(input: string, want: unknown, confidence: string, seed: number): true {
  const r = repair(input);
  if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(input)} -> ${JSON.stringify(r.repaired)}`);
  if (r.metadata.confidence !== confidence) throw new Error(`${JSON.stringify(input)}: ${r.metadata.confidence}, not ${confidence}`);
  const wrong = streamedLikeBatch(input, cutsOf(input.length, seed));
  if (wrong !== null) throw new Error(wrong);
  return true;
}

function setDetail(r: ReturnType<typeof repair>): string | undefined {
  return r.metadata.syntax_repairs.find((d) => d.type === 'converted_set_to_array')?.confidence;
}

t.test('a Python set is the array of its items, in order, at medium; batch and streamed alike', (t) => {
  fc.assert(fc.property(uniqueItems, layout, fc.nat(), (items, l, seed) => {
    const input = pySet(items, l);
    return readsAs(input, items, 'medium', seed) && setDetail(repair(input)) === 'medium';
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('sets nested as member values and list items, in dicts and lists written as Python writes them', (t) => {
  const doc = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(setItem, uniqueItems.map((items) => ({ set: items })), fc.array(uniqueItems.map((items) => ({ set: items })), { maxLength: 3 })), { minKeys: 1, maxKeys: 4 });
  fc.assert(fc.property(doc, layout, fc.nat(), (d, l, seed) => {
    const st: Style = { tuples: false, prefix: '', quote: l.quote, hex: false };
    const write = (v: unknown): string => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'set' in v) return pySet((v as { set: unknown[] }).set, { ...l, lines: false });
      if (Array.isArray(v)) return `[${v.map(write).join(', ')}]`;
      return py(v, st);
    };
    const plain = (v: unknown): unknown => v !== null && typeof v === 'object' && !Array.isArray(v) && 'set' in v ? (v as { set: unknown[] }).set
      : Array.isArray(v) ? v.map(plain) : v;
    const input = `{${Object.entries(d).map(([k, v]) => `${pyString(k, st)}: ${write(v)}`).join(l.lines ? ',\n ' : ', ')}}`;
    const want = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, plain(v)]));
    const hasSet = (v: unknown): boolean => v !== null && typeof v === 'object' && ('set' in v || (Array.isArray(v) && v.some(hasSet)));
    // sets are read at medium; a dict with none stays high (Python's dict as Python reads it)
    return readsAs(input, want, Object.values(d).some(hasSet) ? 'medium' : 'high', seed);
  }), { seed: SEED, numRuns: 300 });
  t.end();
});

t.test('a stream shows a set as an array from its first item on, never as an object first', (t) => {
  fc.assert(fc.property(fc.uniqueArray(setItem, { minLength: 1, maxLength: 5, selector: (x) => JSON.stringify(x) }), layout, (items, l) => {
    const input = `{"tags": ${pySet(items, l)}}`;
    const s = createStream({ preview: 'progressive' });
    for (const ch of input) {
      const tags = (s.push(ch).partial as { tags?: unknown } | null)?.tags;
      if (tags !== undefined && !Array.isArray(tags)) throw new Error(`${JSON.stringify(input)}: tags shown as ${JSON.stringify(tags)}`);
    }
    return JSON.stringify(s.finalize().repaired) === JSON.stringify({ tags: items });
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('what is not a set: objects, names, and a reply cut inside the braces', (t) => {
  const cases: Array<[string, unknown]> = [
    ['{"a": 1, "b"}', { a: 1 }], // a colon first: an object, its member without a value dropped
    ['{1: "a", 2: "b"}', { 1: 'a', 2: 'b' }], // a dict with number keys
    ['{True: 1}', { True: 1 }],
    ['{a, b}', {}], // bare names (JavaScript's shorthand): no set
    ['{}', {}], // the empty dict
    ['{"x"', {}], // cut before the colon: a cut object
    ["{'k'", {}],
    ['{1', {}],
  ];
  for (const [input, want] of cases) {
    const r = repair(input);
    t.same(r.repaired, want, input);
    t.equal(setDetail(r), undefined, `${input}: no set read`);
  }
  t.end();
});

t.test('a colon after a later item: the braces held an object, read as before (linear: nothing is read again)', (t) => {
  fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z]{1,5}$/), { minLength: 2, maxLength: 6 }), fc.integer(), fc.constantFrom("'", '"'), (names, n, q) => {
    const input = `{${names.map((x) => `${q}${x}${q}`).join(', ')}: ${n}}`;
    const r = repair(input);
    // the last item is the name, the items before it are members with no value (low)
    return JSON.stringify(r.repaired) === JSON.stringify({ [names[names.length - 1]!]: n }) && r.metadata.confidence === 'low' &&
      setDetail(r) === undefined && r.metadata.syntax_repairs.some((d) => d.type === 'removed_member_without_value');
  }), { seed: SEED, numRuns: 100 });
  t.same(repair('{1, 2: 3}').repaired, { 2: 3 });
  t.end();
});

t.test('a one-item set is a set; with a schema, a set is an array where the schema wants one', (t) => {
  t.same(repair('{"x"}').repaired, ['x']);
  t.same(repair("{'tags': {'x'}}").repaired, { tags: ['x'] });
  const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } }, required: ['tags'] };
  const r = repair("{'tags': {'b', 'a'}, 'n': 2}", { schema });
  t.ok(r.success);
  t.same(r.repaired, { tags: ['b', 'a'], n: 2 });
  t.equal(r.metadata.confidence, 'medium');
  t.end();
});

t.test("Python's set constructors around a container (a repr's frozenset({…}), set([…])) are its items, at medium", (t) => {
  const call = fc.record({ name: fc.constantFrom('frozenset', 'set'), inner: fc.constantFrom('set', 'list', 'tuple'), space: fc.constantFrom('', ' ') });
  // One line, as a repr writes it (a call read as a wrapper spans no lines).
  const oneLine = layout.map((l) => ({ ...l, lines: false }));
  fc.assert(fc.property(uniqueItems.filter((items) => items.length > 0), oneLine, call, fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => k !== 'n'), fc.nat(), (items, l, c, key, seed) => {
    const st: Style = { tuples: false, prefix: '', quote: l.quote, hex: false };
    const inner = c.inner === 'set' ? pySet(items, l) : c.inner === 'list' ? `[${items.map((x) => py(x, st)).join(', ')}]` : `(${items.map((x) => py(x, st)).join(', ')},)`;
    const input = `{${l.quote}${key}${l.quote}: ${c.name}(${c.space}${inner}${c.space}), ${l.quote}n${l.quote}: 1}`;
    const want = { [key]: items, n: 1 };
    return readsAs(input, want, 'medium', seed) && setDetail(repair(input)) === 'medium';
  }), { seed: SEED, numRuns: 200 });
  for (const [input, want] of [["{'a': frozenset()}", { a: [] }], ["{'a': set()}", { a: [] }]] as const) {
    t.same(repair(input).repaired, want, `${input}: the empty set`);
  }
  // Not a set of a container: a string argument (Python would split it into characters), two
  // arguments, or another name's call stay the call's text, at low.
  for (const input of ["{'a': set('abc')}", "{'a': frozenset([1], [2])}", "{'a': myset([1, 2])}"]) {
    const r = repair(input);
    t.equal(r.metadata.confidence, 'low', `${input}: kept as text`);
    t.equal(typeof (r.repaired as Record<string, unknown>)['a'], 'string');
  }
  t.end();
});

t.test('a set of tuples (`{(1, 2), (3, 4)}`) is the array of its tuples as arrays, at medium; batch and streamed alike', (t) => {
  const tuple = fc.array(setItem, { minLength: 1, maxLength: 4 });
  fc.assert(fc.property(fc.uniqueArray(tuple, { minLength: 1, maxLength: 4, selector: (x) => JSON.stringify(x) }), layout, fc.nat(), fc.boolean(), (tuples, l, seed, nested) => {
    const st: Style = { tuples: false, prefix: '', quote: l.quote, hex: false };
    const sep = l.lines ? ',\n  ' : `,${l.space || ' '}`;
    const set = `{${l.space}${tuples.map((items) => `(${items.map((x) => py(x, st)).join(', ')}${items.length === 1 ? ',' : ''})`).join(sep)}${l.trailing ? ',' : ''}${l.space}}`;
    const input = nested ? `{${l.quote}pairs${l.quote}: ${set}, ${l.quote}n${l.quote}: 1}` : set;
    const want = nested ? { pairs: tuples, n: 1 } : tuples;
    return readsAs(input, want, 'medium', seed) && setDetail(repair(input)) === 'medium';
  }), { seed: SEED, numRuns: 200 });
  // a tuple before a colon is a dict's key, not a set's item; a nested tuple is left to today's reading
  for (const input of ['{(1, 2): "a"}', '{(1, (2, 3))}']) t.equal(setDetail(repair(input)), undefined, `${input}: no set read`);
  t.end();
});

t.test("a dict's tuple key is named by the tuple's text, at medium; batch and streamed alike", (t) => {
  const tuple = fc.array(setItem, { minLength: 1, maxLength: 4 });
  fc.assert(fc.property(fc.uniqueArray(tuple, { minLength: 1, maxLength: 4, selector: (x) => JSON.stringify(x) }), layout, fc.nat(), fc.boolean(), (tuples, l, seed, nested) => {
    const st: Style = { tuples: false, prefix: '', quote: l.quote, hex: false };
    const keys = tuples.map((items) => `(${items.map((x) => py(x, st)).join(', ')}${items.length === 1 ? ',' : ''})`);
    const sep = l.lines ? ',\n  ' : `,${l.space || ' '}`;
    const dict = `{${l.space}${keys.map((k, i) => `${k}: ${i}`).join(sep)}${l.trailing ? ',' : ''}${l.space}}`;
    const input = nested ? `{${l.quote}by${l.quote}: ${dict}, ${l.quote}n${l.quote}: 1}` : dict;
    const named = Object.fromEntries(keys.map((k, i) => [k, i]));
    return readsAs(input, nested ? { by: named, n: 1 } : named, 'medium', seed);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

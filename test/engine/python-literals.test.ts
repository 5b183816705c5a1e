// Rule 6, "Python as Python reads it": a value written as Python's repr writes it — tuples for
// arrays (`(1, 2)`, `(1,)`, `()`), `u'…'`/`U"…"` prefixes, `\xHH` escapes, `True`/`None` — in names
// and values, reads as the value it was written from. `u''` and tuples are what Python means, so
// high; `b''`/`r''` (bytes, raw strings) read as strings are medium; `("x")` is grouping (medium).
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

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

// A reply cut before its root closes, where the cut shows (inside a key, string, number or literal,
// right after a colon or a comma), is never `high`: it carries TRUNCATED_OUTPUT and every member
// written completely before the cut is kept. A reply lacking only closers after a complete value
// keeps `high`. Generated: a JSON object of scalars and nested containers, cut at every offset.
import fc from 'fast-check';
import t from 'tap';
import { repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const key = fc.stringMatching(/^[a-z]{1,6}$/);
const scalar = fc.oneof(
  fc.integer({ min: -999, max: 99999 }), fc.constantFrom(true, false, null),
  fc.stringMatching(/^[a-z ]{1,12}$/),
);
const member = fc.oneof(scalar, fc.array(scalar, { minLength: 1, maxLength: 3 }), fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 2 }));
const doc = fc.dictionary(key, member, { minKeys: 2, maxKeys: 4 });

/** Does the prefix `cut` end on a complete value, so that only closers are missing? */
function onlyClosersMissing(cut: string): boolean {
  // `]`, `}`, a closing quote, or a whole literal; a number may go on (`12` of `125`), so it never does.
  return /(?:[\]}"]|\btrue|\bfalse|\bnull)$/.test(cut);
}

/** Every top-level member written completely before `end` (followed by its comma) is kept as written. */
function completeMembersKept(value: Record<string, unknown>, full: string, end: number, got: unknown): boolean {
  const repaired = got as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) {
    const written = `${JSON.stringify(k)}:${JSON.stringify(v)},`;
    const at = full.indexOf(written);
    if (at >= 0 && at + written.length <= end && JSON.stringify(repaired[k]) !== JSON.stringify(v)) return false;
  }
  return true;
}

t.test('a cut reply is never high and keeps complete members', (t) => {
  fc.assert(fc.property(doc, (value) => {
    const full = JSON.stringify(value);
    for (let end = 2; end < full.length; end++) {
      const cut = full.slice(0, end);
      const r = repair(cut);
      if (!r.success) return false;
      const m = r.metadata;
      const warned = m.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT');
      const tail = cut.charCodeAt(cut.length - 1);
      // The cut shows: right after a comma or a colon.
      if ((tail === 0x2c || tail === 0x3a) && (m.confidence === 'high' || !warned)) return false; // , :
      if (m.confidence === 'high' && !onlyClosersMissing(cut)) return false;
      if (!completeMembersKept(value, full, end, r.repaired)) return false;
    }
    return true;
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('named cuts', (t) => {
  const cases: Array<[string, unknown]> = [
    ['{"a": 1, "b', { a: 1 }], ['{"a": 1, "b":', { a: 1 }], ['{"a": 1,', { a: 1 }], ['[1, 2,', [1, 2]],
    ['{"a": 1, "b": tr', { a: 1, b: true }], ['{"a": 1, "b": nul', { a: 1, b: null }], ['{"a": 1, "b": 12', { a: 1, b: 12 }],
  ];
  for (const [text, want] of cases) {
    const r = repair(text);
    t.same(r.repaired, want, text);
    t.equal(r.metadata.confidence, 'medium', `${text} is medium`);
    t.ok(r.metadata.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT'), `${text} warns TRUNCATED_OUTPUT`);
  }
  // Only closers missing after a complete value: the seed's rule stands.
  for (const text of ['{"a": 1, "b": "x"', '[1, [2, 3]', '{"a": {"b": true}']) {
    t.equal(repair(text).metadata.confidence, 'high', `${text} stays high`);
  }
  t.end();
});

// The schema side: with a schema the string or number the cut fell inside is dropped (its end is
// unknown), a cut literal is kept whole, a nested object the cut left open may lack a required
// member (CUT_OBJECT_INCOMPLETE), and the repair fails only when the root lacks a required member.

/** A schema the value fits: enums for some strings, every nested member required, `required` at the root. */
function schemaOf(value: unknown, enums: boolean, required?: string[]): object {
  if (value === null) return { type: 'null' };
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: 'integer' };
  if (typeof value === 'string') return enums ? { enum: [value, value + 'x'] } : { type: 'string' };
  if (Array.isArray(value)) return { type: 'array', items: value.length > 0 ? schemaOf(value[0], false) : {} };
  const o = value as Record<string, unknown>;
  const properties: Record<string, object> = {};
  for (const [k, v] of Object.entries(o)) properties[k] = schemaOf(v, enums);
  return { type: 'object', properties, required: required ?? Object.keys(o) };
}

/** Every scalar in `got` is the scalar at the same place in `want`: nothing completed by a guess. */
function nothingInvented(got: unknown, want: unknown): boolean {
  if (got === null || typeof got !== 'object') return JSON.stringify(got) === JSON.stringify(want);
  if (want === null || typeof want !== 'object') return false;
  for (const [k, v] of Object.entries(got)) if (!nothingInvented(v, (want as Record<string, unknown>)[k])) return false;
  return true;
}

const uniformArray = fc.oneof(fc.array(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 3 }),
  fc.array(fc.stringMatching(/^[a-z ]{1,8}$/), { minLength: 1, maxLength: 3 }));
const typedMember = fc.oneof(scalar, uniformArray, fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 3 }));
const typedDoc = fc.dictionary(key, typedMember, { minKeys: 2, maxKeys: 4 });

t.test('with a schema: a cut member is dropped, never completed, and fails the repair only at the root', (t) => {
  fc.assert(fc.property(typedDoc, fc.boolean(), fc.nat(), (value, enums, pick) => {
    const keys = Object.keys(value);
    const required = keys.filter((_, k) => ((pick >> k) & 1) === 1);
    const schema = schemaOf(value, enums, required);
    const full = JSON.stringify(value);
    // Where each root member's value starts and ends in `full`.
    const spans = new Map<string, [number, number]>();
    let pos = 1;
    for (const [k, v] of Object.entries(value)) {
      const start = pos + JSON.stringify(k).length + 1;
      spans.set(k, [start, start + JSON.stringify(v).length]);
      pos = start + JSON.stringify(v).length + 1;
    }
    for (let end = 2; end < full.length; end++) {
      const cut = full.slice(0, end);
      const r = repair(cut, { schema });
      const warned = r.metadata.warnings.some((w) => w.code === 'TRUNCATED_OUTPUT');
      if (r.metadata.confidence === 'high' && !onlyClosersMissing(cut)) return false;
      // A root member stands once its value is whole: a string's closing quote, a number's next
      // character (digits may go on), a literal's first letter, a container's opener.
      const kept = (k: string): boolean => {
        const [start, finish] = spans.get(k)!;
        const v = value[k];
        if (typeof v === 'string') return end >= finish;
        if (typeof v === 'number') return end > finish;
        return end > start;
      };
      if (r.success !== required.every(kept)) return false;
      if (!r.success) continue;
      if ((cut.endsWith(',') || cut.endsWith(':')) && !warned) return false;
      if (!nothingInvented(r.repaired, value)) return false;
      if (!completeMembersKept(value, full, end, r.repaired)) return false;
    }
    return true;
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

t.test('with a schema: named cuts', (t) => {
  const schema = {
    type: 'object', required: ['name'],
    properties: { name: { type: 'string' }, status: { enum: ['active', 'inactive'] }, age: { type: 'integer' }, ok: { type: 'boolean' },
      address: { type: 'object', required: ['city', 'zip'], properties: { city: { type: 'string' }, zip: { type: 'string' } } },
      tags: { type: 'array', items: { type: 'string' } } },
  };
  const cases: Array<[string, unknown]> = [
    ['{"name": "Ann", "status": "act', { name: 'Ann' }],
    ['{"name": "Ann", "age": 4', { name: 'Ann' }],
    ['{"name": "Ann", "ok": tr', { name: 'Ann', ok: true }],
    ['{"name": "Ann", "address": {"city": "Paris", "zip": "750', { name: 'Ann', address: { city: 'Paris' } }],
    ['{"name": "Ann", "address": {"city": "Paris"', { name: 'Ann', address: { city: 'Paris' } }],
    ['{"name": "Ann", "address": {"city": "Par', { name: 'Ann', address: {} }],
    ['{"name": "Ann", "tags": ["a", "b", "c', { name: 'Ann', tags: ['a', 'b'] }],
    ['{"name": "Ann", "sta', { name: 'Ann' }],
    ['{"name": "Ann", "status":', { name: 'Ann' }],
  ];
  for (const [text, want] of cases) {
    const r = repair(text, { schema });
    t.ok(r.success, `${text} succeeds`);
    t.same(r.repaired, want, text);
    t.equal(r.metadata.confidence, 'medium', `${text} is medium`);
  }
  const nested = repair('{"name": "Ann", "address": {"city": "Paris", "zip": "750', { schema });
  t.ok(nested.metadata.warnings.some((w) => w.code === 'CUT_OBJECT_INCOMPLETE' && w.field === '/address/zip'), 'the missing nested member is reported');
  t.ok(nested.metadata.syntax_repairs.some((d) => d.type === 'removed_truncated_member' && d.field === '/address/zip'), 'the drop is reported');
  // The root lacks a required member: a failure, never the cut value.
  for (const text of ['{"name": "An', '{"status": "active", "na', '{"age": 4, "name":']) {
    const r = repair(text, { schema });
    t.equal(r.success, false, `${text} fails`);
    t.ok(r.metadata.errors.some((e) => e.field === '/name'), `${text}: /name is missing`);
  }
  // Only closers missing after a complete value: today's rule.
  t.equal(repair('{"name": "Ann", "status": "active"', { schema }).metadata.confidence, 'high');
  t.end();
});

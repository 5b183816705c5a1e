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
      // Every top-level member written completely (followed by its comma) is kept as written.
      const repaired = r.repaired as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) {
        const written = `${JSON.stringify(k)}:${JSON.stringify(v)},`;
        const at = full.indexOf(written);
        if (at >= 0 && at + written.length <= end && JSON.stringify(repaired[k]) !== JSON.stringify(v)) return false;
      }
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

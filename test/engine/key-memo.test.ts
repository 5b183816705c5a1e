// The key memo (engine/scanner/key-memo.ts) carries object names from one scanner to the next in a
// thread, as a hint that every use checks against the text. Property: whatever replies were read
// before, and however two streams' pushes interleave, every reply reads exactly its own names, in
// its own order. And the table the scanners share stays within its bounds.
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';
import { memoOf, SHARED_MEMO } from '../../engine/scanner/key-memo.js';

const SEED = Number(process.env.FC_SEED ?? 20261129);

// Names that collide on a prefix, on a length, need escaping, are integer-like, or are long.
const NAMES = ['a', 'ab', 'abc', 'b', 'ba', 'a b', 'é', 'ab"c', 'a\\b', '0', '__proto__', 'constructor', 'x'.repeat(70), 'x'.repeat(69) + 'y'];

type Obj = { names: string[]; values: Array<number | Obj> };
const object: fc.Memo<Obj> = fc.memo((n) => fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 6 }).chain((names) =>
  fc.tuple(...names.map(() => (n > 1 ? fc.oneof(fc.integer({ min: 0, max: 99 }), object(n - 1)) : fc.integer({ min: 0, max: 99 }))))
    .map((values) => ({ names, values }))));

/** The object as JSON (JSON.parse of it is the value expected, `__proto__` an own member). */
function json(o: Obj): string {
  return `{${o.names.map((name, i) => `${JSON.stringify(name)}:${typeof o.values[i] === 'number' ? o.values[i] : json(o.values[i] as Obj)}`).join(',')}}`;
}

/** The object as a model might write it: each name bare, single- or double-quoted where it can be, a trailing comma. */
function written(o: Obj, style: number[]): string {
  const members = o.names.map((name, i) => {
    const pick = style[i % style.length]!;
    const key = pick === 0 && /^[A-Za-z_$][\w$]*$/.test(name) ? name
      : pick === 1 && !/['\\]/.test(name) ? `'${name}'` : JSON.stringify(name);
    const v = o.values[i]!;
    return `${key}: ${typeof v === 'number' ? v : written(v, style)}`;
  });
  return `{${members.map((m) => `${m},`).join(' ')}}`;
}

const reply = fc.tuple(object(3), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 4 }));

t.test('a reply reads its own names, whatever replies came before', async (t) => {
  fc.assert(fc.property(fc.array(reply, { minLength: 2, maxLength: 6 }), (replies) => {
    for (const [o, style] of replies) {
      const out = repair(written(o, style));
      if (!out.success) return false;
      if (JSON.stringify(out.repaired) !== JSON.stringify(JSON.parse(json(o)))) return false;
    }
    return true;
  }), { seed: SEED, numRuns: 400 });
  t.pass('400 sequences of replies');
});

t.test('two streams pushed in turn read their own names', async (t) => {
  fc.assert(fc.property(reply, reply, fc.integer({ min: 1, max: 7 }), ([a, sa], [b, sb], size) => {
    const texts = [written(a, sa), written(b, sb)];
    const streams = [createStream(), createStream()];
    for (let at = 0; at < Math.max(texts[0]!.length, texts[1]!.length); at += size) {
      for (let k = 0; k < 2; k++) if (at < texts[k]!.length) streams[k]!.push(texts[k]!.slice(at, at + size));
    }
    const read = streams.map((s) => s.finalize());
    return read.every((r, k) => r.success && JSON.stringify(r.repaired) === JSON.stringify(JSON.parse(json([a, b][k]!))));
  }), { seed: SEED, numRuns: 300 });
  t.pass('300 pairs of interleaved streams');
});

t.test('the shared table is bounded', async (t) => {
  t.equal(memoOf({ p: 1, q: 2 }, 2, SHARED_MEMO), SHARED_MEMO, 'a small object\'s names go to the shared table');
  t.same(SHARED_MEMO[2], ['p', 'q']);
  const wide = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
  const own = memoOf(wide, 2, SHARED_MEMO);
  t.not(own, SHARED_MEMO, 'a wide object\'s scanner takes a table of its own');
  t.equal(own[2]!.length, 65, 'which keeps its names');
  t.same(SHARED_MEMO[2], ['p', 'q'], 'and the shared table does not');
  t.equal(memoOf({ r: 1 }, 2, own), own, 'later names stay in the scanner\'s own table');
  t.same(SHARED_MEMO[2], ['p', 'q']);
  t.not(memoOf({ ['n'.repeat(65)]: 1 }, 2, SHARED_MEMO), SHARED_MEMO, 'nor is a long name shared');
  t.not(memoOf({ deep: 1 }, 16, SHARED_MEMO), SHARED_MEMO, 'nor names deeper than the table');
  t.equal(SHARED_MEMO[16], undefined);
  t.same(memoOf({ 'a"b': 1, c: 2 }, 3, SHARED_MEMO)[3], [undefined, 'c'], 'a name that needs escaping is never matched against the text');
});

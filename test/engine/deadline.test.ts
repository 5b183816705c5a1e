// A caller's time limit stops the engine's own work (engine/deadline.ts): a repair past its
// deadline answers WORK_DEADLINE_EXCEEDED, a stream's push past its budget throws that code and
// ends the stream, and nothing of one call's deadline reaches the next call. Not timed: the
// inputs take far longer than the limits given (megabytes against 0-1 ms), so the limit is passed.
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const SCHEMA = { type: 'object', required: ['zz'], properties: { zz: { type: 'number' } } };
const HEAVY = '[' + '{},'.repeat(700_000); // about 2 MB, unclosed: the scanner's slow path
const FENCES = '```\n//{\n```\n'.repeat(100_000); // the alignment's candidates

t.test('a repair past its deadline answers WORK_DEADLINE_EXCEEDED', async (t) => {
  for (const [name, text, options] of [
    ['scanner', HEAVY, {}],
    ['alignment', FENCES, { schema: SCHEMA }],
    ['schema pass', HEAVY, { schema: { type: 'array', items: { type: 'object' } } }],
  ] as const) {
    const r = repair(text, { ...options, deadline: Date.now() + 1 });
    t.equal(r.success, false, name);
    t.equal(r.metadata.errors[0]?.code, 'WORK_DEADLINE_EXCEEDED', `${name}: the code`);
    t.equal(r.metadata.errors[0]?.recoverable, false);
  }
  // A deadline far off changes nothing, and no deadline outlives its call.
  const small = '{a: 1, b: [1, 2,]}';
  t.same(repair(small, { deadline: Date.now() + 60_000 }), repair(small));
  t.equal(repair(HEAVY.slice(0, 3000)).success, true, 'the next call without a deadline runs to its end');
});

t.test('a push past its budget throws and ends the stream; finalize says why', async (t) => {
  for (const preview of ['complete', 'progressive', 'patch'] as const) {
    // The first push is the heavy one: any push may pass a 1 ms budget on a busy machine.
    const s = createStream({ preview, callBudgetMs: 1 });
    let code: unknown;
    try {
      s.push(HEAVY);
    } catch (error) {
      code = (error as { code?: unknown }).code;
    }
    t.equal(code, 'WORK_DEADLINE_EXCEEDED', `${preview}: the push throws the code`);
    t.throws(() => s.push('1'), { code: 'WORK_DEADLINE_EXCEEDED' }, 'later pushes too');
    const f = s.finalize();
    t.equal(f.metadata.errors[0]?.code, 'WORK_DEADLINE_EXCEEDED', 'finalize answers the error');
  }
  // A stream within its budget answers as one without.
  const a = createStream({ callBudgetMs: 60_000 });
  const b = createStream({});
  for (const piece of ['{"a": [1, ', '2], b: tru', 'e}']) t.same(a.push(piece), b.push(piece));
  t.same(a.finalize(), b.finalize());
});

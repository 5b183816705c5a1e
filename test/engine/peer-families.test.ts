// The families found in other libraries' public test suites (dirty-json, best-effort-json-parser,
// untruncate-json, partial-json, the Vercel AI SDK's fixJson, jsonrepair-rs, JSON5 habits, LaTeX
// and Python escapes), each case with the value a careful reader takes and whether that reader would
// be sure of it (`high`). `high` must mean "a careful reader would write the same": a case whose
// reading is a guess is never answered at `high`, and no case we read otherwise is answered at
// `high` either. Cases marked `open` are readings the engine does not take yet.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createStream, repair } from '../../dist/engine/index.js';

interface Case { family: string; from: string; input: string; expected: unknown; high: boolean; open?: true }
const cases = JSON.parse(readFileSync(new URL('./fixtures/peer-families.json', import.meta.url), 'utf8')) as Case[];

const label = (c: Case): string => `${c.family} (${c.from}): ${JSON.stringify(c.input)}`;

t.test('each case repairs to the careful reader\'s value, batch and streamed', async (t) => {
  for (const c of cases.filter((c) => !c.open)) {
    const r = repair(c.input);
    t.same(r.repaired, c.expected, label(c));
    const stream = createStream();
    for (let i = 0; i < c.input.length; i += 3) stream.push(c.input.slice(i, i + 3));
    t.same(stream.finalize().metadata.confidence, r.metadata.confidence, `streamed: ${label(c)}`);
  }
});

t.test('high only where the careful reader is sure', async (t) => {
  for (const c of cases) {
    const r = repair(c.input);
    if (!c.high || c.open) t.not(r.metadata.confidence, 'high', label(c));
  }
});

t.test('the open cases are still open (a change that closes one drops its mark)', async (t) => {
  for (const c of cases.filter((c) => c.open)) {
    const r = repair(c.input);
    t.notOk(r.success && JSON.stringify(r.repaired) === JSON.stringify(c.expected), label(c));
  }
});

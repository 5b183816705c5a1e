// Realistic model output: 403 replies written after real chat, agent and extraction output (prose and
// fences around the JSON, citations and placeholders in the prose, cuts at every kind of point,
// Python and JavaScript habits, LaTeX and Windows paths, quotes left unescaped, tool calls), each
// with the value a careful reader would take from it. A regression table: every case here passed
// when it was added (session 11 and after); the ones still open are listed in docs/peers.md.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createStream, repair } from '../../dist/engine/index.js';

interface Case { name: string; input: string; expected?: unknown; fails?: true; confidence?: string[] }
const cases = JSON.parse(readFileSync(new URL('./fixtures/model-output.json', import.meta.url), 'utf8')) as Case[];

t.test('each reply repairs to the value a careful reader would take from it', async (t) => {
  t.ok(cases.length >= 403);
  for (const c of cases) {
    const r = repair(c.input);
    if (c.fails) {
      t.equal(r.success, false, `${c.name}: no JSON in it`);
      continue;
    }
    t.same(r.repaired, c.expected, c.name);
    if (c.confidence !== undefined) t.ok(c.confidence.includes(r.metadata.confidence), `${c.name}: confidence ${r.metadata.confidence}`);
  }
});

t.test('streamed in 7-character pushes, finalize answers exactly what repair does', async (t) => {
  for (const c of cases) {
    const s = createStream({});
    for (let i = 0; i < c.input.length; i += 7) s.push(c.input.slice(i, i + 7));
    t.same(s.finalize(), repair(c.input), c.name);
  }
});

// Realistic model output: 428 replies written after real chat, agent and extraction output (prose and
// fences around the JSON, citations and placeholders in the prose, cuts at every kind of point,
// Python and JavaScript habits, LaTeX and Windows paths, quotes left unescaped, tool calls), each
// with the value a careful reader would take from it. The figure in docs/peers.md is this table's.
// Cases marked `open` are replies the engine does not read that way yet; every other case is a
// regression test. A change to the engine that closes an open case fails the second test until the
// case loses its `open` mark and AGREEING_REPLIES goes up by one.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createStream, repair } from '../../dist/engine/index.js';

/** Replies whose repair is the expected value: docs/peers.md quotes this figure ("427 of 428"). */
const AGREEING_REPLIES = 427;

interface Case { name: string; input: string; expected?: unknown; fails?: true; open?: true; confidence?: string[] }
const cases = JSON.parse(readFileSync(new URL('./fixtures/model-output.json', import.meta.url), 'utf8')) as Case[];

/** Whether the engine reads the reply as a careful reader would (`fails`: finds no JSON in it). */
function agrees(c: Case): boolean {
  const r = repair(c.input);
  if (c.fails) return r.success === false;
  if (JSON.stringify(r.repaired) !== JSON.stringify(c.expected)) return false;
  return c.confidence === undefined || c.confidence.includes(r.metadata.confidence);
}

t.test('each reply repairs to the value a careful reader would take from it', async (t) => {
  for (const c of cases.filter((c) => !c.open)) {
    const r = repair(c.input);
    if (c.fails) {
      t.equal(r.success, false, `${c.name}: no JSON in it`);
      continue;
    }
    t.same(r.repaired, c.expected, c.name);
    if (c.confidence !== undefined) t.ok(c.confidence.includes(r.metadata.confidence), `${c.name}: confidence ${r.metadata.confidence}`);
  }
});

t.test(`${AGREEING_REPLIES} of the replies agree; the open ones are still open`, async (t) => {
  t.equal(cases.filter(agrees).length, AGREEING_REPLIES, 'agreeing replies');
  t.equal(cases.filter((c) => !c.open).length, AGREEING_REPLIES, 'every case not marked open agrees');
  for (const c of cases.filter((c) => c.open)) {
    t.notOk(agrees(c), `${c.name}: now agrees; drop its open mark and raise AGREEING_REPLIES`);
  }
});

t.test('streamed in 7-character pushes, finalize answers exactly what repair does', async (t) => {
  for (const c of cases) {
    const s = createStream({});
    for (let i = 0; i < c.input.length; i += 7) s.push(c.input.slice(i, i + 7));
    t.same(s.finalize(), repair(c.input), c.name);
  }
});

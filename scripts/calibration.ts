// `npm run calibration [-- --list high]`: how far each confidence level can be trusted. For the
// realistic replies (test/engine/fixtures/model-output.json, each with the value a careful reader
// takes), the families of other libraries' suites (test/engine/fixtures/peer-families.json) and the
// peers' test tables (test/fixtures/peer-cases/, kept in the repository), the share of
// answers at each level that are right. A peer answer counts as right when we agree with the peer
// or a documented deliberate difference (docs/peers.md) explains the disagreement; an input the
// peer gives up on has no known answer and is left out. docs/repairs.md publishes the table.
// --list LEVEL prints the wrong answers at that level. Exit 1 when a `high` answer is wrong.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { classifyDifference } from '../bench/engine/peer-differences.js';
import { loadPeerTables, PEER_CASES_DIR, type Ours } from '../bench/engine/peer-tables.js';
import { jsonEqual } from '../support/json-equal.js';
import { printTable } from '../bench/lib/table.js';
import { repair } from '../engine/index.js';

const { values } = parseArgs({ options: { list: { type: 'string' } } });
const LEVELS = ['high', 'medium', 'low'] as const;

interface Tally { right: number; total: number; wrong: string[] }
type Tallies = Record<(typeof LEVELS)[number], Tally>;

const empty = (): Tallies => ({ high: { right: 0, total: 0, wrong: [] }, medium: { right: 0, total: 0, wrong: [] }, low: { right: 0, total: 0, wrong: [] } });

function count(tallies: Tallies, input: string, expected: unknown, right: (value: unknown, ours: Ours, confidence: string) => boolean): void {
  const r = repair(input);
  if (!r.success) return; // no answer, so no confidence to judge
  const ours: Ours = { success: true, value: r.repaired, repairs: r.metadata.syntax_repairs.map((d) => d.type) };
  const tally = tallies[r.metadata.confidence as keyof Tallies];
  tally.total++;
  if (right(r.repaired, ours, r.metadata.confidence)) tally.right++;
  else tally.wrong.push(`${JSON.stringify(input)}\n    ours:     ${JSON.stringify(r.repaired)}\n    expected: ${JSON.stringify(expected)}`);
}

const rows: string[][] = [];
const lists: Array<[string, Tallies]> = [];

const replies = JSON.parse(readFileSync(new URL('../../test/engine/fixtures/model-output.json', import.meta.url), 'utf8')) as Array<{ input: string; expected?: unknown; fails?: true }>;
const onReplies = empty();
for (const c of replies) if (c.fails !== true) count(onReplies, c.input, c.expected, (value) => jsonEqual(value, c.expected));
lists.push(['realistic replies', onReplies]);

// The families of other libraries' test suites (test/engine/fixtures/peer-families.json): a case
// marked `high: false` is a guess, so an answer at `high` to it is wrong even when the value agrees.
const families = JSON.parse(readFileSync(new URL('../../test/engine/fixtures/peer-families.json', import.meta.url), 'utf8')) as Array<{ input: string; expected: unknown; high: boolean }>;
const onFamilies = empty();
for (const c of families) count(onFamilies, c.input, c.expected, (value, _ours, confidence) => jsonEqual(value, c.expected) && (c.high || confidence !== 'high'));
lists.push(['peer families (other libraries\' suites)', onFamilies]);

for (const table of loadPeerTables(PEER_CASES_DIR)) {
  const tallies = empty();
  for (const c of table.cases) {
    const expected = c.expected;
    if (expected.kind !== 'value') continue;
    count(tallies, c.input, expected.value, (value, ours) => jsonEqual(value, expected.value) || classifyDifference(c.input, expected, ours) !== null);
  }
  lists.push([table.name, tallies]);
}

const share = (t: Tally): string => (t.total === 0 ? '–' : `${((100 * t.right) / t.total).toFixed(1)}% (${t.right}/${t.total})`);
for (const [name, tallies] of lists) rows.push([name, share(tallies.high), share(tallies.medium), share(tallies.low)]);
printTable(['cases', 'high: right', 'medium: right', 'low: right'], rows);

const listed = values.list as (typeof LEVELS)[number] | undefined;
if (listed !== undefined) {
  for (const [name, tallies] of lists) for (const wrong of tallies[listed].wrong) process.stdout.write(`${name} [${listed}] ${wrong}\n`);
}
process.exitCode = lists.some(([, tallies]) => tallies.high.wrong.length > 0) ? 1 : 0;

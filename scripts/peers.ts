// `npm run peers [-- --out FILE] [-- --check]`: runs the engine over the peers' test tables and prints
// how often we agree with each peer. A target is judged on agreement plus the disagreements that a
// documented deliberate difference explains (docs/peers.md): the peers' tables encode choices we
// decided against, and counting those as misses would make the target a vote for the peer's choices.
// --out writes every disagreement (input, expected, ours) as JSON; --check exits 1 on a missed target.
// The tables live in test/fixtures/peer-cases/.
import { writeFileSync } from 'node:fs';
import { DELIBERATE_DIFFERENCES } from '../bench/engine/peer-differences.js';
import { agreeOrDeliberate, loadPeerTables, PEER_CASES_DIR, runTable, type CaseResult, type PeerExpectation, type TableResult } from '../bench/engine/peer-tables.js';
import { printTable } from '../bench/lib/table.js';

function parseArgs(argv: readonly string[]): { out: string | null; check: boolean } {
  let out: string | null = null;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--out') out = argv[++i] ?? null;
    else if (arg.startsWith('--out=')) out = arg.slice('--out='.length);
    else if (arg === '--check') check = true;
    else throw new Error(`peers: unknown argument ${arg} (usage: peers [--out FILE] [--check])`);
  }
  if (argv.includes('--out') && out === null) throw new Error('peers: --out needs a file name');
  return { out, check };
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
}

function describeExpected(expected: PeerExpectation): unknown {
  if (expected.kind === 'value') return expected.value;
  return expected.kind === 'fails' ? '(peer throws)' : '(peer gives up: "")';
}

function disagreementRecord(result: CaseResult): Record<string, unknown> {
  return {
    table: result.table,
    outcome: result.outcome,
    deliberate: result.deliberate,
    note: result.note,
    input: result.input,
    expected: describeExpected(result.expected),
    ours: result.ours.success ? { value: result.ours.value, repairs: result.ours.repairs } : { failed: result.ours.errors },
  };
}

function summarise(tables: readonly TableResult[]): void {
  printTable(
    ['table', 'cases', 'agree', 'deliberate', 'agree or deliberate', 'target', 'unexplained: differ', 'we fail', 'we repair, peer fails', 'threw'],
    tables.map((result) => {
      const { table, counts, results } = result;
      const unexplained = (outcome: string): number => results.filter((r) => r.outcome === outcome && r.deliberate === null).length;
      const judged = agreeOrDeliberate(result);
      return [
        table.name, table.cases.length, `${counts.agree} (${percent(counts.agree, table.cases.length)})`,
        results.filter((r) => r.deliberate !== null).length, `${(judged * 100).toFixed(1)}%`,
        table.target === null ? 'info' : `${table.target * 100}% ${judged >= table.target ? 'pass' : 'FAIL'}`,
        unexplained('differ'), unexplained('we-fail'), unexplained('we-repair'), counts.threw,
      ];
    }),
  );
  process.stdout.write('\n');
  printTable(
    ['deliberate difference (docs/peers.md)', ...tables.map(({ table }) => table.name), 'what'],
    DELIBERATE_DIFFERENCES.map((d) => [d.id, ...tables.map(({ results }) => results.filter((r) => r.deliberate === d.id).length), d.title]),
  );
}

function main(): void {
  const { out, check } = parseArgs(process.argv.slice(2));
  const tables = loadPeerTables(PEER_CASES_DIR).map(runTable);
  summarise(tables);
  if (out !== null) {
    const records = tables.flatMap(({ results }) => results.filter((r) => r.outcome !== 'agree').map(disagreementRecord));
    writeFileSync(out, `${JSON.stringify(records, null, 2)}\n`);
    process.stdout.write(`\n${records.length} disagreements written to ${out}\n`);
  }
  const missed = tables.filter((result) => result.table.target !== null && agreeOrDeliberate(result) < result.table.target);
  if (check && missed.length > 0) process.exitCode = 1;
}

try {
  main();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}

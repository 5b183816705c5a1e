// `npm run bench`: every HTTP scenario against servers this run starts on 127.0.0.1, one table with
// the targets judged, results saved to bench/results/<date>-<git sha>.json.
//   --quick               shorter runs (under 2 minutes)
//   --compare <file>      also print the change against an earlier results file
//   --compare <a> --with <b>   compare two saved runs, without running anything
//   --sweep               req/s and p99 against each capacity setting; SVG charts into docs/
//   --charts <sweep.json> redraw those charts from a saved sweep, running nothing
//   --only <id,id>        run only these scenarios (ids as in the results file; "overload")
//   --soak                the memory soak instead (bench/soak/run.ts: 240 s; with --quick 60 s)
// Exit status: 0 when every target passes, 1 when one fails, 2 on a usage or run error.
import { parseArgs } from 'node:util';
import { runBench } from './suite/bench-run.js';
import { stopLoad } from './lib/load.js';
import { installCleanup, stopAll } from '../support/server-process.js';
import { renderNotes, renderRows, REPORT_WIDTH } from './suite/report.js';
import { renderAdvice, wrap } from './suite/advice.js';
import { loadResults, renderComparison, saveResults } from './suite/results.js';
import { renderSoak, runSoak } from './soak/run.js';
import { runSweep } from './suite/sweep.js';
import { redrawSweepCharts } from './suite/sweep-charts.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sweep: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    compare: { type: 'string' },
    with: { type: 'string' },
    only: { type: 'string' },
    charts: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

async function main(): Promise<number> {
  if (values.help) {
    process.stdout.write('usage: npm run bench [-- --quick] [--compare <file> [--with <file>]] [--sweep] [--soak] [--charts <sweep.json>] [--only id,id]\n');
    return 0;
  }
  if (values.charts !== undefined) {
    process.stdout.write(`charts: ${redrawSweepCharts(values.charts).join(', ')}\n`);
    return 0;
  }
  if (values.with !== undefined) {
    if (values.compare === undefined) throw new Error('--with needs --compare <file>');
    process.stdout.write(`${renderComparison(loadResults(values.compare), loadResults(values.with))}\n`);
    return 0;
  }
  // Read the earlier run first, so a wrong path fails before minutes of measuring.
  const before = values.compare === undefined ? null : loadResults(values.compare);
  installCleanup(stopLoad);
  if (values.sweep) {
    await runSweep({ quick: values.quick });
    return 0;
  }
  if (values.soak) {
    const soak = await runSoak(values.quick ? { seconds: 60 } : {});
    process.stdout.write(`\n${renderSoak(soak)}\n`);
    return soak.flat && !soak.serverExited && soak.tally.unexpected === 0 ? 0 : 1;
  }
  const results = await runBench({ quick: values.quick, only: values.only?.split(',').map((id) => id.trim()) ?? null });
  const { machine } = results;
  process.stdout.write(`${wrap(`jsonmend bench (${results.mode}): ${results.git.sha}${results.git.dirty ? '+dirty' : ''}, node ${results.node}, ` +
    `${machine.cpus} cores, load average ${machine.loadavgStart[0]} at start, ${machine.loadavgEnd[0]} at end, ` +
    `${results.settings.seconds} s per row after ${results.settings.warmupSeconds} s warm-up`, REPORT_WIDTH, '  ')}\n\n`);
  if (machine.loadavgStart[0]! > machine.cpus / 2) {
    process.stdout.write(`${wrap(`note: load average ${machine.loadavgStart[0]} on ${machine.cpus} cores before the run: other jobs share this machine, so figures are low and vary between runs`, REPORT_WIDTH, '  ')}\n\n`);
  }
  const context = { cores: machine.cpus, loadavgStart: machine.loadavgStart[0]! };
  process.stdout.write(`${renderRows(results.rows)}\n\n${renderAdvice(results.rows, context, REPORT_WIDTH)}\n\n${renderNotes(results.rows)}\n`);
  const path = saveResults(results, results.mode === 'quick' ? '-quick' : '');
  process.stdout.write(`\nresults: ${path}\n`);
  if (before !== null) process.stdout.write(`\n${renderComparison(before, results)}\n`);
  return results.rows.some((row) => row.pass === false) ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
    await stopAll();
    process.exitCode = 2;
  },
);

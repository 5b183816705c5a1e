// `node dist/bench/engine/compare-builds.js <dist> [<dist> ...]`: this build's repair of the 1 KB LLM
// reply (bench/engine's) against other builds' — each a built `dist` folder of a checkout, e.g. a
// `git worktree` of an earlier commit after `npm run build` — in one process, in alternating
// blocks, as the median of paired ratios (bench/lib/timing.ts pairedRatios). The issue's "the 1 KB
// reply gets back what the content check cost" is this ratio against the build before it.
// Options: --seconds N (default 10).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { repair } from '../../engine/index.js';
import { printTable } from '../lib/table.js';
import { pairedRatios } from '../lib/timing.js';
import { llmReply } from './inputs.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { seconds: { type: 'string', default: '10' } } });
if (positionals.length === 0) {
  process.stderr.write('usage: node dist/bench/engine/compare-builds.js <other build\'s dist> [...] [--seconds N]\n');
  process.exit(2);
}
type Repair = (text: string) => unknown;
const others: Array<{ name: string; repair: Repair }> = [];
for (const dir of positionals) {
  const engine = await import(pathToFileURL(resolve(dir, 'engine/index.js')).href) as { repair: Repair };
  others.push({ name: dir, repair: engine.repair });
}
const text = llmReply().text;
const builds = [{ name: 'this build', repair: repair as Repair }, ...others];
const result = pairedRatios(builds.map((b) => () => b.repair(text)), 300, Number(values.seconds) * 1000);
printTable(['build', '1 KB reply, µs per repair', 'x this build'], builds.map((b, i) => [
  b.name, (result.nsPerOp[i]! / 1000).toFixed(2), i === 0 ? '1.000' : (1 / result.ratio[i]!).toFixed(3),
]));
process.stdout.write(`${result.rounds} rounds of 300 repairs each; "x this build" is this build's time over the other's\n`);

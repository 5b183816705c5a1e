// `node dist/bench/engine/compare-builds.js <dist> [<dist> ...]`: this build's repair against other
// builds' — each a built `dist` folder of a checkout, e.g. a `git worktree` of an earlier commit
// after `npm run build` — on bench/engine's 1 KB LLM reply and, with --families, on each
// malformation family (families.ts), in one process, in alternating blocks, as the median of paired
// ratios (bench/lib/timing.ts pairedRatios). The issue's "the 1 KB reply gets back what the content
// check cost" is the first table against the build before that check: the reply repeated (a caller
// whose replies share a shape) and eight versions of it with names of their own read in turn (a
// shape the thread has not just seen: the key memo carried between replies never matches).
// Options: --seconds N per input (default 10), --families.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { repair } from '../../engine/index.js';
import { printTable } from '../lib/table.js';
import { pairedRatios } from '../lib/timing.js';
import { families } from './families.js';
import { generateDocument, llmReply, replyShapes } from './inputs.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '10' }, families: { type: 'boolean', default: false } },
});
if (positionals.length === 0) {
  process.stderr.write('usage: node dist/bench/engine/compare-builds.js <other build\'s dist> [...] [--seconds N] [--families]\n');
  process.exit(2);
}
type Repair = (text: string) => unknown;
const builds: Array<{ name: string; repair: Repair }> = [{ name: 'this build', repair: repair as Repair }];
for (const dir of positionals) {
  const engine = await import(pathToFileURL(resolve(dir, 'engine/index.js')).href) as { repair: Repair };
  builds.push({ name: dir, repair: engine.repair });
}
const budgetMs = Number(values.seconds) * 1000;

/** Every build's repair of `text` (pairedRatios: nsPerOp per build, ratio to this build's). */
const compare = (text: string, blockOps: number): ReturnType<typeof pairedRatios> =>
  pairedRatios(builds.map((b) => () => b.repair(text)), blockOps, budgetMs);
/** This build's time over build i's (the paired ratio is build i's over this build's). */
const thisOverIt = (r: ReturnType<typeof pairedRatios>, i: number): string => (1 / r.ratio[i]!).toFixed(3);

const reply = compare(llmReply().text, 300);
const shapes = replyShapes(8);
const turns = builds.map(() => 0);
const inTurn = pairedRatios(builds.map((b, i) => () => b.repair(shapes[turns[i]++ & 7]!)), 300, budgetMs);
printTable(['build', '1 KB reply, µs per repair', 'this build ÷ it', '8 shapes in turn, µs', 'this build ÷ it'],
  builds.map((b, i) => [b.name, (reply.nsPerOp[i]! / 1000).toFixed(2), thisOverIt(reply, i), (inTurn.nsPerOp[i]! / 1000).toFixed(2), thisOverIt(inTurn, i)]));
process.stdout.write(`${reply.rounds} and ${inTurn.rounds} rounds of 300 repairs each\n`);
if (values.families) {
  const rows: string[][] = [];
  for (const family of families(generateDocument(1_500_000))) {
    const r = compare(family.text, 2);
    const ms = (i: number): string => `${(r.nsPerOp[i]! / 1e6).toFixed(2)} ms`;
    for (let i = 1; i < builds.length; i++) rows.push([family.name, builds[i]!.name, ms(0), ms(i), thisOverIt(r, i)]);
  }
  printTable(['family (~1.5 MB)', 'build', 'this build', 'that build', 'this build ÷ it'], rows);
}

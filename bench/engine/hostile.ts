// `npm run bench:hostile-shapes`: the engine's time on hostile shapes (support/hostile-shapes.ts)
// at growing sizes, for each way it is driven (batch, batch with a schema, pushes per preview
// mode, finalize): for each, the time at n (n doubled until its time is worth measuring) and at 8n.
// Linear work grows about 8x; the last column is that ratio and a row above RATIO_LIMIT fails the
// run. `--only <shape substring>`, `--path <path substring>`, `--floor-ms`, `--max-size` and
// `--runs` tune it. Run under the bench lock.
import { loadavg } from 'node:os';
import * as engine from '../../engine/index.js';
import { HOSTILE_SHAPES, hostilePaths, measureScaling } from '../../support/hostile-shapes.js';
import { printTable, type Cell } from '../lib/table.js';

const RATIO_LIMIT = 12;

function arg(name: string): string | undefined {
  const k = process.argv.indexOf(name);
  return k < 0 ? undefined : process.argv[k + 1];
}

const only = arg('--only');
const pathFilter = arg('--path');
const runs = Number(arg('--runs') ?? 3);
const floorMs = Number(arg('--floor-ms') ?? 40);
const maxSize = Number(arg('--max-size') ?? 524_288);

console.log(`hostile shapes: n doubles from 8192 until its time reaches ${floorMs} ms (at most ${maxSize}), then 8n; best of ${runs} (CPU time of this process); load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const rows: Cell[][] = [];
let failed = 0;
for (const path of hostilePaths(engine)) {
  if (pathFilter !== undefined && !path.name.includes(pathFilter)) continue;
  for (const shape of HOSTILE_SHAPES) {
    if (only !== undefined && !shape.name.includes(only)) continue;
    const s = measureScaling(path.run, shape.make, { from: 8192, maxSize, floorMs, runs, retryAbove: RATIO_LIMIT, attempts: 3 });
    // A path too fast to time at the largest n is judged by its 8n time alone.
    if (s.timed ? s.ratio > RATIO_LIMIT : s.large > RATIO_LIMIT * floorMs) failed++;
    rows.push([path.name, shape.name, s.size, s.small.toFixed(1), s.large.toFixed(1), s.ratio.toFixed(1)]);
  }
}
printTable(['path', 'shape', 'n (chars)', 'ms at n', 'ms at 8n', 'x'], rows);
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (failed > 0) {
  console.log(`${failed} row(s) grew more than ${RATIO_LIMIT}x from n to 8n`);
  process.exitCode = 1;
}

// `npm run bench:hostile-shapes`: the engine's time on hostile shapes (support/hostile-shapes.ts)
// at growing sizes, for each way it is driven (batch, batch with a schema, pushes per preview
// mode, finalize). Linear work grows about 8x per 8x size; the table's last column is that ratio
// and a row above RATIO_LIMIT fails the run. `--sizes 65536,524288` sets the sizes (characters),
// `--only <shape substring>` and `--path <path substring>` narrow it. Run under the bench lock.
import { loadavg } from 'node:os';
import * as engine from '../../engine/index.js';
import { bestOf, HOSTILE_SHAPES, hostilePaths } from '../../support/hostile-shapes.js';
import { printTable, type Cell } from '../lib/table.js';

const RATIO_LIMIT = 12;

function arg(name: string): string | undefined {
  const k = process.argv.indexOf(name);
  return k < 0 ? undefined : process.argv[k + 1];
}

const sizes = (arg('--sizes') ?? '65536,524288').split(',').map(Number);
const only = arg('--only');
const pathFilter = arg('--path');
const runs = Number(arg('--runs') ?? 3);

console.log(`hostile shapes: sizes ${sizes.join(', ')} characters, best of ${runs} (CPU time of this process); load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const rows: Cell[][] = [];
let failed = 0;
for (const path of hostilePaths(engine)) {
  if (pathFilter !== undefined && !path.name.includes(pathFilter)) continue;
  for (const shape of HOSTILE_SHAPES) {
    if (only !== undefined && !shape.name.includes(only)) continue;
    path.run(shape.make(sizes[0]!)); // warm-up
    const times = sizes.map((n) => {
      const text = shape.make(n);
      return bestOf(runs, () => path.run(text));
    });
    // Ratio per 8x of size, from the first and last sizes (ms below 1 are clock noise: floored at 1).
    const growth = sizes.length > 1 ? Math.log(sizes.at(-1)! / sizes[0]!) / Math.log(8) : 1;
    const ratio = Math.pow(times.at(-1)! / Math.max(1, times[0]!), 1 / growth);
    if (ratio > RATIO_LIMIT && times.at(-1)! > 50) failed++;
    rows.push([path.name, shape.name, ...times.map((ms) => ms.toFixed(1)), ratio.toFixed(1)]);
  }
}
printTable(['path', 'shape', ...sizes.map((n) => `${n} ch (ms)`), 'x per 8x'], rows);
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (failed > 0) {
  console.log(`${failed} row(s) grew more than ${RATIO_LIMIT}x per 8x of size`);
  process.exitCode = 1;
}

// Every input costs time linear in its size: for each hostile shape (support/hostile-shapes.ts) and
// each way the engine is driven (batch, batch with a schema, pushes in each preview mode, finalize),
// the time for 8n characters stays within 16x (BOUND) the time for n — quadratic work gives about 64x.
// Robust on a busy machine: times are the process's CPU time (other processes do not inflate it),
// n grows until its time is at least FLOOR_MS, each figure is the best of two runs, a high ratio is
// measured again and the lowest kept (load only ever slows a run), and a path too fast to time at
// the largest n is held to an absolute bound instead.
// The heavier sweep with its table is `npm run bench:hostile-shapes` (bench/engine/hostile.ts).
import t from 'tap';
import * as engine from '../../engine/index.js';
import { HOSTILE_SHAPES, hostilePaths, measureScaling } from '../../support/hostile-shapes.js';

const FLOOR_MS = 15;
// About 8 for linear work; 64 for quadratic. Allocation-heavy shapes measure 9-13 in a full suite run
// (process CPU includes the collector's helper threads, which grow with the heap), hence 16: still
// four times below what quadratic work gives, so a regression to it fails.
const BOUND = 16;

t.setTimeout(900_000);

for (const path of hostilePaths(engine)) {
  t.test(path.name, async (t) => {
    for (const shape of HOSTILE_SHAPES) {
      const s = measureScaling(path.run, shape.make, { from: 8192, maxSize: 131_072, floorMs: FLOOR_MS, runs: 2, retryAbove: BOUND, attempts: 3 });
      const figures = `${shape.name}: n=${s.size} ${s.small.toFixed(1)} ms, 8n ${s.large.toFixed(1)} ms (x${s.ratio.toFixed(1)})`;
      if (s.timed) t.ok(s.ratio <= BOUND, figures);
      else t.ok(s.large <= BOUND * FLOOR_MS, `${figures}: too fast to time at n, 8n within ${BOUND * FLOOR_MS} ms`);
    }
  });
}

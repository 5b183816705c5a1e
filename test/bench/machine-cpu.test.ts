// The machine's busy CPU (/proc/stat), which the bench's advice judges "other jobs" by: it counts
// this process's own work, so a spin of a few hundred milliseconds shows in it.
import t from 'tap';
import { machineBusySeconds } from '../../bench/lib/machine-cpu.js';

t.test('busy CPU grows by at least what this process spent', { skip: process.platform !== 'linux' && 'reads /proc/stat' }, async (t) => {
  const before = machineBusySeconds();
  t.type(before, 'number');
  const own = process.cpuUsage();
  const until = Date.now() + 300;
  while (Date.now() < until) { /* spin */ }
  const spent = (process.cpuUsage(own).user + process.cpuUsage(own).system) / 1e6;
  const after = machineBusySeconds()!;
  // /proc/stat counts in 10 ms ticks: allow two of them
  t.ok(after - before! >= spent - 0.02, `machine ${(after - before!).toFixed(2)} s >= own ${spent.toFixed(2)} s`);
});

// Timing for micro-benchmarks: warm up, size each run so the clock's resolution and loop overhead
// vanish, then take the median of several runs (the median ignores the odd GC pause or a neighbour
// stealing the CPU on a shared machine; the mean would not).

import { createRandom, type Random } from '../../support/random.js';

export interface MeasureOptions {
  /** Time spent running the function before measuring, so V8 has optimised it. */
  warmupMs?: number;
  /** Number of timed runs; the result is their median. */
  runs?: number;
  /** Each run repeats the function until it lasts at least this long. */
  minRunMs?: number;
  /** Upper bound on the whole measurement (warm-up included); fewer runs are taken when slow. */
  budgetMs?: number;
  /**
   * `wall` (default) times the runs by the clock; `cpu` by this process's CPU time (all its
   * threads), which a neighbour stealing the CPU on a shared machine does not stretch.
   */
  clock?: 'wall' | 'cpu';
}

export interface Measurement {
  /** Median time of one call, in nanoseconds. */
  nsPerOp: number;
  /** Time of one call in each run, in nanoseconds, in the order measured. */
  samples: number[];
  /** Calls per run. */
  opsPerRun: number;
}

const DEFAULTS: Required<MeasureOptions> = { warmupMs: 200, runs: 7, minRunMs: 100, budgetMs: 10_000, clock: 'wall' };

// Results go here so V8 cannot drop a call whose value is never used.
export let sink: unknown;

function nowNs(): number {
  return Number(process.hrtime.bigint());
}

function timeOps(fn: () => unknown, ops: number): number {
  const start = nowNs();
  for (let i = 0; i < ops; i++) sink = fn();
  return nowNs() - start;
}

function cpuOps(fn: () => unknown, ops: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < ops; i++) sink = fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1e3;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function measure(fn: () => unknown, options: MeasureOptions = {}): Measurement {
  return measureInterleaved([fn], options)[0]!;
}

/**
 * Measures several functions in alternating runs (A B A B ...), so that a ratio between them is not
 * skewed by which one ran while the garbage collector was cleaning up after the other.
 */
export function measureInterleaved(fns: readonly (() => unknown)[], options: MeasureOptions = {}): Measurement[] {
  const { warmupMs, runs, minRunMs, budgetMs, clock } = { ...DEFAULTS, ...options };
  const timed = clock === 'cpu' ? cpuOps : timeOps;
  const started = nowNs();
  // Warm-up doubles as calibration: the last warm-up call tells how long one call takes.
  const opsPerRun = fns.map((fn) => {
    const warmStart = nowNs();
    let single = timeOps(fn, 1);
    while (nowNs() - warmStart < warmupMs * 1e6) single = timeOps(fn, 1);
    return { ops: Math.max(1, Math.ceil((minRunMs * 1e6) / Math.max(single, 1))), single };
  });
  const roundNs = opsPerRun.reduce((sum, { ops, single }) => sum + ops * single, 0);
  const remainingNs = budgetMs * 1e6 - (nowNs() - started);
  const runCount = Math.max(1, Math.min(runs, Math.floor(remainingNs / Math.max(roundNs, 1))));
  const samples: number[][] = fns.map(() => []);
  for (let r = 0; r < runCount; r++) {
    fns.forEach((fn, i) => samples[i]!.push(timed(fn, opsPerRun[i]!.ops) / opsPerRun[i]!.ops));
  }
  return samples.map((s, i) => ({ nsPerOp: median(s), samples: s, opsPerRun: opsPerRun[i]!.ops }));
}

/** Megabytes (10^6 bytes) per second for `bytes` processed in `ns` nanoseconds. */
export function megabytesPerSecond(bytes: number, ns: number): number {
  return bytes / 1e6 / (ns / 1e9);
}

/** Puts `items` in a random order drawn from `random` (Fisher-Yates), in place. */
export function shuffle<T>(items: T[], random: Random): T[] {
  for (let k = items.length - 1; k > 0; k--) {
    const j = random.int(k + 1);
    [items[k], items[j]] = [items[j]!, items[k]!];
  }
  return items;
}

/**
 * Ratios of each function's time to the first's, for changes too small for measureInterleaved's
 * medians to show on a shared machine: the functions run in short blocks of `blockOps` calls, in
 * an order shuffled every round (seeded), for `budgetMs`; each round gives a ratio per function,
 * and the median of those ratios is reported (a slow spell lands on one round, not on one
 * function). Shuffled, because a block pays for the garbage the block before it left: with the
 * order only reversed, the first function always followed itself or the second, never a function
 * that allocates more, and every ratio to it came out high (valid ~1.5 MB: 1.19-1.24x).
 */
export function pairedRatios(fns: readonly (() => unknown)[], blockOps: number, budgetMs: number): { nsPerOp: number[]; ratio: number[]; rounds: number } {
  for (const fn of fns) timeOps(fn, blockOps * 20); // warm-up
  const times: number[][] = fns.map(() => []);
  const end = nowNs() + budgetMs * 1e6;
  const random = createRandom(0x5eed);
  const order = fns.map((_, i) => i);
  while (nowNs() < end) {
    shuffle(order, random);
    for (const i of order) times[i]!.push(timeOps(fns[i]!, blockOps) / blockOps);
  }
  const rounds = times[0]!.length;
  return {
    nsPerOp: times.map(median),
    ratio: times.map((t) => median(t.map((x, r) => x / times[0]![r]!))),
    rounds,
  };
}

// `npm run bench -- --sweep`: every point of sweep-plan.ts on a fresh server, a table per setting,
// the results in bench/results/<date>-<sha>-sweep.json and the charts as docs/capacity-<id>.svg
// (a --quick sweep draws into bench/results/charts-quick/ so it never replaces the committed ones).
// A full sweep measures every point twice, the second round in reverse order, and shows the mean:
// a neighbour's load that rises or falls during the sweep then weighs on both ends alike.
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { MALFORMED_1KB } from './bodies.js';
import { boundBy, runLoad } from '../lib/load.js';
import { generateKey, startJsonmend } from '../../support/server-process.js';
import { Progress } from './progress.js';
import { formatMs, formatRate } from './report.js';
import { gitState, machineAtStart, RESULTS_DIR, round2, saveResults } from './results.js';
import { DEMO_LIMIT_PER_HOUR } from './scenarios.js';
import { probeStream } from './stream-session.js';
import { DOCS_DIR, writeSweepCharts } from './sweep-charts.js';
import { sweepPlan, type SweepGroup, type SweepPoint } from './sweep-plan.js';
import { renderTable } from '../lib/table.js';

const TIMES = { full: { seconds: 5, warmupSeconds: 2, rounds: 2 }, quick: { seconds: 2, warmupSeconds: 1, rounds: 1 } };
const START_SECONDS = 2.5; // a server start and the pause after the warm-up

export interface SweepResult {
  group: string;
  x: string;
  series: string;
  env: Record<string, string>;
  workload: string;
  connections: number;
  status: 'measured' | 'unavailable' | 'error';
  reason?: string;
  requestsPerSecond?: number;
  repairedPerSecond?: number;
  refusedPerSecond?: number;
  failedPerSecond?: number;
  inputMBps?: number;
  p50?: number;
  p99?: number;
  repairedP99?: number;
  refusedP99?: number;
  /** p99 of each body of a mixed workload, in its order (ms). */
  p99ByRequest?: number[];
  serverCores?: number;
  loadgenCores?: number;
  bound?: string;
  loadavg?: number;
  /** Each round's figures, when the point was measured more than once. */
  rounds?: SweepResult[];
}

const AVERAGED = ['requestsPerSecond', 'repairedPerSecond', 'refusedPerSecond', 'failedPerSecond', 'inputMBps', 'p50', 'p99',
  'repairedP99', 'refusedP99', 'serverCores', 'loadgenCores', 'loadavg'] as const;

/** The mean of the rounds that were measured (a latency no round had stays absent). */
function combine(rounds: SweepResult[]): SweepResult {
  const measured = rounds.filter((r) => r.status === 'measured');
  if (rounds.length === 1 || measured.length === 0) return rounds.length === 1 ? rounds[0]! : { ...rounds[0]!, rounds };
  const out: SweepResult = { ...measured[0]!, rounds };
  for (const field of AVERAGED) {
    const values = measured.map((r) => r[field]).filter((v): v is number => v !== undefined && Number.isFinite(v));
    out[field] = values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
  }
  if (out.loadavg !== undefined) out.loadavg = round2(out.loadavg);
  if (measured[0]!.p99ByRequest !== undefined) {
    out.p99ByRequest = measured[0]!.p99ByRequest.map((_, i) => measured.reduce((sum, r) => sum + (r.p99ByRequest?.[i] ?? Number.NaN), 0) / measured.length);
  }
  out.bound = measured.some((r) => r.bound === 'loadgen') ? 'loadgen' : measured.some((r) => r.bound === 'cpu') ? 'cpu' : '-';
  return out;
}

async function measurePoint(point: SweepPoint, key: string, times: { seconds: number; warmupSeconds: number }): Promise<SweepResult> {
  const base = { group: point.group, x: point.x, series: point.series, env: point.env, workload: point.workload.label, connections: point.workload.connections };
  const server = await startJsonmend({ ...point.env, API_KEYS: `${key}:unlimited`, DEMO_LIMIT_PER_HOUR: String(DEMO_LIMIT_PER_HOUR) });
  try {
    if (point.workload.stream === true) {
      const probe = await probeStream(server.url, key, MALFORMED_1KB);
      if (probe.kind === 'unavailable') return { ...base, status: 'unavailable', reason: `stream start answered HTTP ${probe.status}` };
    }
    const stats = await runLoad(server, {
      url: server.url, requests: point.workload.requests(key), connections: point.workload.connections, pipelining: 1,
      seconds: times.seconds, warmupSeconds: times.warmupSeconds,
      ...(point.workload.settleMs !== undefined ? { settleMs: point.workload.settleMs } : {}),
    });
    const perSecond = (count: number): number => count / stats.seconds;
    return {
      ...base,
      status: 'measured',
      requestsPerSecond: stats.requestsPerSecond,
      repairedPerSecond: perSecond(stats.byOutcome.ok.count),
      refusedPerSecond: perSecond(stats.byOutcome.unavailable.count),
      failedPerSecond: perSecond(stats.byOutcome.failed.count + stats.errors + stats.non2xx),
      inputMBps: stats.inputMBps,
      p50: stats.latency.p50,
      p99: stats.latency.p99,
      repairedP99: stats.byOutcome.ok.p99,
      refusedP99: stats.byOutcome.unavailable.p99,
      ...(stats.byRequest.length > 1 ? { p99ByRequest: stats.byRequest.map((p) => p.p99) } : {}),
      serverCores: stats.serverCores,
      loadgenCores: stats.loadgenCores,
      bound: boundBy(stats, cpus().length),
      loadavg: round2(loadavg()[0]!),
    };
  } catch (error) {
    return { ...base, status: 'error', reason: (error as Error).message };
  } finally {
    await server.stop();
  }
}

function groupTable(group: SweepGroup, results: readonly SweepResult[]): string {
  const rows = results.filter((r) => r.group === group.id).map((r) => [
    r.x, r.workload,
    r.status === 'measured' ? formatRate(r.requestsPerSecond) : r.status,
    formatRate(r.repairedPerSecond), formatRate(r.refusedPerSecond), formatRate(r.failedPerSecond),
    formatMs(r.p50), formatMs(r.p99), formatMs(r.repairedP99), formatMs(r.refusedP99),
    r.p99ByRequest?.map(formatMs).join(' / ') ?? '-',
    r.inputMBps === undefined ? '-' : formatRate(r.inputMBps),
    r.serverCores === undefined ? '-' : `${r.serverCores.toFixed(2)}/${r.loadgenCores!.toFixed(2)}`,
    r.serverCores === undefined || !r.requestsPerSecond ? '-' : formatRate((r.serverCores * 1e6) / r.requestsPerSecond),
    r.bound ?? '-', r.loadavg ?? '-',
  ]);
  return `${group.title} (${group.subtitle})\n${renderTable([
    group.xLabel, 'workload', 'req/s', 'repaired/s', 'refused/s', 'failed/s', 'p50 ms', 'p99 ms', 'p99 repaired', 'p99 refused', 'p99 by body',
    'MB/s repaired', 'cores srv/lg', 'srv µs/req', 'bound', 'load avg',
  ], rows)}`;
}

export async function runSweep(options: { quick: boolean }): Promise<void> {
  const times = options.quick ? TIMES.quick : TIMES.full;
  const groups = sweepPlan();
  const points = groups.flatMap((g) => g.points);
  // Round 1 in plan order, round 2 in reverse, and so on.
  const order = Array.from({ length: times.rounds }, (_, round) => (round % 2 === 0 ? points.map((_, i) => i) : points.map((_, i) => points.length - 1 - i))).flat();
  const progress = new Progress(order.map((i) => {
    const p = points[i]!;
    return { label: `${p.group} = ${p.x} (${p.workload.label})`, seconds: times.seconds + times.warmupSeconds + START_SECONDS };
  }));
  const machine = machineAtStart();
  const git = gitState();
  const startedAt = new Date();
  const key = generateKey();
  const byPoint: SweepResult[][] = points.map(() => []);
  for (const [step, index] of order.entries()) {
    progress.begin(step);
    byPoint[index]!.push(await measurePoint(points[index]!, key, times));
  }
  progress.end();
  const results = byPoint.map(combine);
  machine.loadavgEnd = loadavg().map(round2);

  for (const group of groups) process.stdout.write(`\n${groupTable(group, results)}\n`);
  const written = writeSweepCharts(groups, results, git.sha, options.quick ? join(RESULTS_DIR, 'charts-quick') : DOCS_DIR);
  const path = saveResults({
    kind: 'jsonmend-bench-sweep', mode: options.quick ? 'quick' : 'full', date: startedAt.toISOString(), git, node: process.version, machine,
    settings: { ...times, server: 'node dist/server/main.js, PORT=0, HOST=127.0.0.1, API_KEYS=<generated>:unlimited, DATA_DIR temporary; the listed variables set, others default' },
    durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    results,
  }, options.quick ? '-sweep-quick' : '-sweep');
  process.stdout.write(`\ncharts: ${written.join(', ') || 'none'}\nresults: ${path}\n`);
}

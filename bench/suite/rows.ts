// One row of the bench table (and of the results file): a scenario's figures, how they compare to
// the echo ceiling, and its targets judged. Rows are plain JSON so an earlier run can be read back.
import { boundBy, type LoadStats, type Percentiles } from '../lib/load.js';
import type { Target } from './scenarios.js';

export type RowStatus = 'measured' | 'unavailable' | 'wrong answer' | 'error';

export interface TargetResult {
  text: string;
  pass: boolean;
}

export interface Row {
  id: string;
  label: string;
  connections: number;
  pipelining: number;
  status: RowStatus;
  /** Why a row is not measured (unavailable, wrong answer, error). */
  reason?: string;
  note?: string;
  seconds?: number;
  requestsPerSecond?: number;
  inputMBps?: number;
  /** Milliseconds, over the answers this row is about (all of them unless the row says otherwise). */
  latency?: Omit<Percentiles, 'count'>;
  responses?: number;
  errors?: number;
  non2xx?: number;
  /** HTTP 200 answers that refused (SERVICE_UNAVAILABLE) or failed. */
  refused?: number;
  failed?: number;
  /** The echo ceiling's req/s this row is compared with, and the ratio. */
  ceilingRequestsPerSecond?: number | null;
  echoFraction?: number | null;
  serverCores?: number;
  /** Cores of the server's HTTP (uWS) thread alone: near 1, it is the limit whatever WORKERS says. */
  httpThreadCores?: number;
  loadgenCores?: number;
  /** Server CPU per answer, in µs: steadier than req/s on a shared machine. */
  serverMicrosPerRequest?: number;
  bound?: 'loadgen' | 'cpu' | '-';
  /** 1-minute load average when the row finished (other jobs share the machine). */
  loadavg?: number;
  /** Cores the whole machine kept busy during the row, this run's own included (Linux). */
  machineCores?: number;
  targets: TargetResult[];
  pass: boolean | null;
}

export function unmeasuredRow(base: Pick<Row, 'id' | 'label' | 'connections' | 'pipelining' | 'note'>, status: RowStatus, reason: string, targets: readonly Target[]): Row {
  return { ...base, status, reason, targets: targets.map((t) => ({ text: describeTarget(t), pass: false })), pass: status === 'unavailable' ? null : false };
}

export function describeTarget(target: Target): string {
  switch (target.kind) {
    case 'p99': return `p99 < ${target.maxMs} ms`;
    case 'echo-fraction': return `>= ${Math.round(target.min * 100)}% of echo`;
    case 'input-mbps': return `>= ${target.min} MB/s`;
  }
}

function judge(target: Target, row: Row): TargetResult {
  const text = describeTarget(target);
  switch (target.kind) {
    case 'p99': return { text, pass: (row.latency?.p99 ?? Infinity) < target.maxMs };
    case 'echo-fraction': return { text, pass: (row.echoFraction ?? 0) >= target.min };
    case 'input-mbps': return { text, pass: (row.inputMBps ?? 0) >= target.min };
  }
}

export function measuredRow(
  base: Pick<Row, 'id' | 'label' | 'connections' | 'pipelining' | 'note'>,
  stats: LoadStats,
  ceilingRps: number | null,
  targets: readonly Target[],
  cores: number,
  latency: Percentiles = stats.latency,
  refusalsExpected = false,
): Row {
  const row: Row = {
    ...base,
    status: 'measured',
    seconds: stats.seconds,
    requestsPerSecond: stats.requestsPerSecond,
    inputMBps: stats.inputMBps,
    latency: { p50: latency.p50, p90: latency.p90, p99: latency.p99, p999: latency.p999 },
    responses: stats.responses,
    errors: stats.errors,
    non2xx: stats.non2xx,
    refused: stats.byOutcome.unavailable.count,
    failed: stats.byOutcome.failed.count,
    ceilingRequestsPerSecond: ceilingRps,
    echoFraction: ceilingRps === null || ceilingRps <= 0 ? null : stats.requestsPerSecond / ceilingRps,
    serverCores: stats.serverCores,
    ...(stats.httpThreadCores === undefined ? {} : { httpThreadCores: stats.httpThreadCores }),
    loadgenCores: stats.loadgenCores,
    ...(stats.machineCores === undefined ? {} : { machineCores: stats.machineCores }),
    serverMicrosPerRequest: stats.requestsPerSecond > 0 ? (stats.serverCores * 1e6) / stats.requestsPerSecond : undefined,
    bound: boundBy(stats, cores),
    targets: [],
    pass: null,
  };
  row.targets = targets.map((t) => judge(t, row));
  // A row whose answers were refused or wrong under load has not met any target, however fast.
  const clean = row.failed === 0 && row.errors === 0 && row.non2xx === 0 && (refusalsExpected || row.refused === 0);
  if (!clean && targets.length > 0) row.targets.push({ text: 'no failed answers', pass: false });
  row.pass = row.targets.length === 0 ? null : row.targets.every((t) => t.pass);
  return row;
}

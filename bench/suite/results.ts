// The results file of a run (bench/results/<date>-<git sha>.json) and the comparison of two runs.
// A change is called out only past what repeated runs on this shared machine differ by; anything
// smaller is printed but not flagged.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../lib/table.js';
import { formatMs, formatRate } from './report.js';
import type { Row } from './rows.js';

export const RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));
const REQUESTS_NOISE = 0.15;
const P99_NOISE = 0.3;

export interface Machine {
  cpus: number;
  model: string;
  /** 1, 5 and 15 minute load averages: other jobs share this machine. */
  loadavgStart: number[];
  loadavgEnd: number[];
}

export interface RunResults {
  kind: 'jsonmend-bench';
  mode: 'full' | 'quick';
  date: string;
  git: { sha: string; dirty: boolean };
  node: string;
  machine: Machine;
  settings: Record<string, unknown>;
  durationSeconds: number;
  rows: Row[];
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function gitState(): { sha: string; dirty: boolean } {
  return { sha: git(['rev-parse', '--short', 'HEAD']) || 'nogit', dirty: git(['status', '--porcelain']).length > 0 };
}

export function machineAtStart(): Machine {
  const list = cpus();
  return { cpus: list.length, model: list[0]?.model ?? 'unknown', loadavgStart: loadavg().map(round2), loadavgEnd: [] };
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Writes the results; returns the path. `suffix` tells quick runs and sweeps apart. */
export function saveResults<T extends { date: string; git: { sha: string } }>(results: T, suffix = ''): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${results.date.slice(0, 10)}-${results.git.sha}${suffix}.json`);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}

export function loadResults(path: string): RunResults {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as RunResults;
  if (parsed.kind !== 'jsonmend-bench' || !Array.isArray(parsed.rows)) throw new Error(`${path} is not a results file of npm run bench`);
  return parsed;
}

function change(before: number | undefined, after: number | undefined): string {
  if (before === undefined || after === undefined || !Number.isFinite(before) || !Number.isFinite(after) || before === 0) return '';
  const ratio = after / before - 1;
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(0)}%`;
}

function verdictOf(row: Row | undefined): string {
  if (row === undefined) return 'absent';
  if (row.status !== 'measured') return row.status;
  return row.pass === null ? '-' : row.pass ? 'pass' : 'FAIL';
}

function flag(before: Row, after: Row): string {
  const flags: string[] = [];
  const rps = (after.requestsPerSecond ?? 0) / (before.requestsPerSecond ?? Infinity) - 1;
  const p99 = (after.latency?.p99 ?? 0) / (before.latency?.p99 ?? Infinity) - 1;
  if (rps < -REQUESTS_NOISE) flags.push('req/s down');
  if (p99 > P99_NOISE) flags.push('p99 up');
  if (before.pass === true && after.pass === false) flags.push('now fails');
  if (before.pass === false && after.pass === true) flags.push('now passes');
  return flags.join(', ');
}

export function renderComparison(before: RunResults, after: RunResults): string {
  const ids = [...new Set([...after.rows.map((r) => r.id), ...before.rows.map((r) => r.id)])];
  const cells = ids.map((id) => {
    const a = before.rows.find((r) => r.id === id);
    const b = after.rows.find((r) => r.id === id);
    const both = a?.status === 'measured' && b?.status === 'measured';
    return [
      (b ?? a)!.label,
      `${formatRate(a?.requestsPerSecond)} -> ${formatRate(b?.requestsPerSecond)}`,
      change(a?.requestsPerSecond, b?.requestsPerSecond),
      `${formatMs(a?.latency?.p99)} -> ${formatMs(b?.latency?.p99)}`,
      change(a?.latency?.p99, b?.latency?.p99),
      `${formatRate(a?.serverMicrosPerRequest)} -> ${formatRate(b?.serverMicrosPerRequest)}`,
      change(a?.serverMicrosPerRequest, b?.serverMicrosPerRequest),
      `${verdictOf(a)} -> ${verdictOf(b)}`,
      both ? flag(a, b) : '',
    ];
  });
  const describe = (r: RunResults): string => `${r.date} ${r.git.sha}${r.git.dirty ? '+dirty' : ''} (${r.mode}, load average ${r.machine.loadavgStart[0]} -> ${r.machine.loadavgEnd[0]})`;
  return [
    `before: ${describe(before)}`,
    `after:  ${describe(after)}`,
    renderTable(['scenario', 'req/s', 'change', 'p99 ms', 'change', 'srv µs/req', 'change', 'result', `flag (past ${REQUESTS_NOISE * 100}% req/s, ${P99_NOISE * 100}% p99)`], cells),
  ].join('\n');
}

// One line per row that missed its target: the likely cause, judged from what the run measured, and
// the setting to try. The checks run in order and the first that holds names the cause: a run the
// load generator or the neighbours limited says nothing about the server's settings, so those come
// first; then refusals (the queue), then the HTTP thread (inline repairs), then the pool.
import type { Row } from './rows.js';
import { LOADGEN_BOUND_CORES } from '../lib/load.js';

/** Machine context the rows are judged against. */
export interface RunContext {
  cores: number;
  /** 1-minute load average before the run started. */
  loadavgStart: number;
}

/** The HTTP thread near a full core is the limit: WORKERS cannot help what runs on it. */
export const HTTP_THREAD_BUSY_CORES = 0.85;

function cores(value: number): string {
  return `${value.toFixed(2)} cores`;
}

/** Why `row` (which missed a target) missed it, and what to change; null for a passing row. */
export function adviseRow(row: Row, context: RunContext): string | null {
  if (row.pass !== false) return null;
  const missed = row.targets.filter((t) => !t.pass).map((t) => t.text).join('; ');
  const cause = causeOf(row, context);
  return `${row.id}: missed ${missed || row.status}. ${cause}`;
}

function ownCores(row: Row): number {
  return (row.serverCores ?? 0) + (row.loadgenCores ?? 0);
}

/**
 * Cores other jobs used during the row, and what that was read from: the machine's busy cores over
 * the row (/proc/stat) less this run's own (server and load generator). Where the machine's CPU was
 * not read, the 1-minute load average stands in, floored at its value before the run (it decays
 * over minutes, so right after other work it still counts that work).
 */
export function otherJobs(row: Row, context: RunContext): { cores: number; evidence: string } {
  const own = ownCores(row);
  if (row.machineCores !== undefined) {
    return { cores: Math.max(0, row.machineCores - own), evidence: `the machine's CPU during the row ${cores(row.machineCores)} less this run's own ${cores(own)}` };
  }
  return {
    cores: Math.max(context.loadavgStart, (row.loadavg ?? 0) - own),
    evidence: `load average ${row.loadavg ?? context.loadavgStart} less this run's own ${cores(own)}`,
  };
}

function causeOf(row: Row, context: RunContext): string {
  if (row.status !== 'measured') {
    return `${row.reason ?? row.status}. Check the server log and the results file; no setting to change until the row measures.`;
  }
  const overload = row.id.startsWith('overload-');
  if ((row.loadgenCores ?? 0) >= LOADGEN_BOUND_CORES) {
    return `The load generator used ${cores(row.loadgenCores!)} (autocannon is one thread): it was the bound, not the server. ` +
      'Judge by srv µs/req, or load the server from a second machine.';
  }
  const others = otherJobs(row, context);
  if (others.cores > context.cores / 2) {
    return `Other jobs kept about ${others.cores.toFixed(1)} of the ${context.cores} cores busy (${others.evidence}): ` +
      're-run when the machine is quiet; compare srv µs/req, which shifts less than req/s.';
  }
  if ((row.failed ?? 0) > 0 || (row.errors ?? 0) > 0 || (row.non2xx ?? 0) > 0) {
    return `${row.failed ?? 0} failed answers, ${row.errors ?? 0} connection errors, ${row.non2xx ?? 0} non-2xx: not a capacity ` +
      'setting; read the error codes in the server log (LOG_LEVEL=info).';
  }
  if (!overload && (row.refused ?? 0) > 0) {
    return `${row.refused} answers refused (SERVICE_UNAVAILABLE, HTTP 200): the pool's queue was full. Raise WORKERS ` +
      '(up to the cores) or PROCESSES (with REDIS_URL) for more capacity; QUEUE_MAX only trades refusals for latency.';
  }
  if ((row.httpThreadCores ?? 0) >= HTTP_THREAD_BUSY_CORES) {
    return `The HTTP thread used ${cores(row.httpThreadCores!)}: it parses, answers and repairs bodies up to ` +
      'INLINE_MAX_BYTES itself. Lower INLINE_MAX_BYTES to move repairs to the pool, or run PROCESSES=<cores> with ' +
      'REDIS_URL for one HTTP thread per core.';
  }
  if (row.bound === 'cpu') {
    return `Server (${cores(row.serverCores ?? 0)}) and load generator filled the ${context.cores} cores: the machine is the ` +
      'limit. More cores (PROCESSES with REDIS_URL) or more machines (nodes behind HAProxy); WORKERS above the cores does not help.';
  }
  if (row.id === 'overload-accepted') {
    return 'Accepted answers waited too long: lower QUEUE_MAX so fewer wait behind the workers, or raise WORKERS.';
  }
  if (row.id === 'overload-refused') {
    return 'Refusals were slow: the HTTP thread answers them, so it was busy with other work; lower INLINE_MAX_BYTES.';
  }
  if (row.id === 'overload-recovery') {
    return 'The queue took long to drain after the load: lower QUEUE_MAX (less backlog to work off).';
  }
  return `The server used ${cores(row.serverCores ?? 0)} of ${context.cores} with the HTTP thread at ` +
    `${row.httpThreadCores === undefined ? '-' : cores(row.httpThreadCores)}: the pool was the limit. Raise WORKERS ` +
    '(default: the cores) if cores are idle; for p99 targets, a lower QUEUE_MAX refuses sooner instead of queueing.';
}

export function renderAdvice(rows: readonly Row[], context: RunContext, width: number): string {
  const lines = rows.map((row) => adviseRow(row, context)).filter((line): line is string => line !== null);
  if (lines.length === 0) return 'every row met its target';
  return ['What to change (rows that missed a target):', ...lines.map((line) => wrap(`- ${line}`, width, '  '))].join('\n');
}

/** Breaks `text` at spaces so no line is wider than `width`; continuation lines get `indent`. */
export function wrap(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = indent + word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out.join('\n');
}

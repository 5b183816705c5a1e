// Overload: a server with one worker and a short queue, sent 100 KB bodies (all to the pool) by far
// more connections than it can serve. Four rows: the request alone (its cost), the accepted and the
// refused answers under overload, and a probe right after the load stops. The targets are ours:
//   refused   - SERVICE_UNAVAILABLE answered fast: p99 under 5 ms (it does no repair work);
//   accepted  - no latency collapse: p99 under twice the time to serve everything that can be ahead
//               of a request (QUEUE_MAX + WORKERS tasks, each the p50 of the request alone);
//   recovery  - the first request after the load is repaired, and the probe's p50 is within twice
//               the p50 alone (+1 ms).
import { formatBytes } from '../lib/format.js';
import { malformedDocument } from './bodies.js';
import { bearer, classifyEnvelope } from './answers.js';
import { runLoad, type LoadStats, type Percentiles, type RequestSpec } from '../lib/load.js';
import { startJsonmend } from '../../support/server-process.js';
import { measuredRow, type Row, type TargetResult } from './rows.js';
import { envelopeRequest } from './scenarios.js';

export const OVERLOAD_ENV = Object.freeze({ WORKERS: '1', QUEUE_MAX: '4', INLINE_MAX_BYTES: '1024' });
export const OVERLOAD_CONNECTIONS = 64;
const REFUSAL_P99_MS = 5;

export interface OverloadTimes {
  probeSeconds: number;
  seconds: number;
  warmupSeconds: number;
}

/** Seconds the overload phase plans to take (for the progress line). */
export function overloadPlannedSeconds(times: OverloadTimes): number {
  return times.probeSeconds * 2 + times.seconds + times.warmupSeconds * 2 + 2;
}

/** The run's figures for one kind of answer only (accepted or refused; inputMBps counts accepted ones). */
function restricted(stats: LoadStats, latency: Percentiles, accepted: boolean): LoadStats {
  return { ...stats, requestsPerSecond: latency.count / stats.seconds, inputMBps: accepted ? stats.inputMBps : 0, latency };
}

function withTargets(row: Row, targets: TargetResult[]): Row {
  row.targets = targets;
  row.pass = targets.every((t) => t.pass);
  return row;
}

const RECOVERY_LIMIT_MS = 5_000;

interface Recovery {
  firstOk: boolean;
  firstMs: number;
  firstError: string;
  /** From the end of the load to the first repaired answer (null: none within the limit). */
  repairedAfterMs: number | null;
  refusedBefore: number;
}

/**
 * Right after the load stops, one request at a time until one is repaired: is the very first one
 * served, and if not, how long until the server repairs again?
 */
async function untilRepaired(url: string, request: RequestSpec): Promise<Recovery> {
  const start = performance.now();
  const result: Recovery = { firstOk: false, firstMs: 0, firstError: '', repairedAfterMs: null, refusedBefore: 0 };
  for (let i = 0; performance.now() - start < RECOVERY_LIMIT_MS; i++) {
    const sent = performance.now();
    const answer = await fetch(url + request.path, { method: 'POST', headers: request.headers, body: request.body });
    const text = await answer.text();
    const ok = classifyEnvelope(answer.status, text) === 'ok';
    if (i === 0) {
      result.firstOk = ok;
      result.firstMs = performance.now() - sent;
      result.firstError = ok ? '' : (/"code":"([A-Z_]+)"/.exec(text)?.[1] ?? `HTTP ${answer.status}`);
    }
    if (ok) {
      result.repairedAfterMs = performance.now() - start;
      return result;
    }
    result.refusedBefore++;
  }
  return result;
}

export async function runOverload(key: string, times: OverloadTimes, cores: number, onPhase: (label: string) => void): Promise<{ rows: Row[]; env: Record<string, string> }> {
  const input = malformedDocument(100_000);
  const request: RequestSpec = envelopeRequest('/v1/repair', input, bearer(key));
  const settings = `${formatBytes(input.bytes)}, WORKERS=${OVERLOAD_ENV.WORKERS} QUEUE_MAX=${OVERLOAD_ENV.QUEUE_MAX} INLINE_MAX_BYTES=${OVERLOAD_ENV.INLINE_MAX_BYTES}`;
  const server = await startJsonmend({ ...OVERLOAD_ENV, API_KEYS: `${key}:unlimited` });
  try {
    const base = (id: string, label: string, connections: number) => ({ id, label, connections, pipelining: 1 });
    onPhase('overload: the request alone');
    const alone = await runLoad(server, { url: server.url, requests: [request], connections: 1, pipelining: 1, seconds: times.probeSeconds, warmupSeconds: times.warmupSeconds });
    const aloneRow = measuredRow({ ...base('overload-alone', `overload: request alone (${settings})`, 1) }, alone, null, [], cores);
    const aloneMs = alone.byOutcome.ok.p50;

    onPhase(`overload: ${OVERLOAD_CONNECTIONS} connections`);
    const load = await runLoad(server, { url: server.url, requests: [request], connections: OVERLOAD_CONNECTIONS, pipelining: 1, seconds: times.seconds, warmupSeconds: times.warmupSeconds });
    const recovery = await untilRepaired(server.url, request);

    onPhase('overload: recovery probe');
    const after = await runLoad(server, { url: server.url, requests: [request], connections: 1, pipelining: 1, seconds: times.probeSeconds, warmupSeconds: 0 });

    const bound = 2 * (Number(OVERLOAD_ENV.QUEUE_MAX) + Number(OVERLOAD_ENV.WORKERS)) * aloneMs;
    const accepted = load.byOutcome.ok;
    const refused = load.byOutcome.unavailable;
    const acceptedRow = withTargets(
      measuredRow(base('overload-accepted', `overload: accepted answers (${OVERLOAD_CONNECTIONS} conn.)`, OVERLOAD_CONNECTIONS), restricted(load, accepted, true), null, [], cores, accepted, true),
      [{ text: `p99 < ${bound.toFixed(1)} ms`, pass: accepted.count > 0 && accepted.p99 < bound }],
    );
    const refusedRow = withTargets(
      measuredRow(base('overload-refused', `overload: SERVICE_UNAVAILABLE answers (${OVERLOAD_CONNECTIONS} conn.)`, OVERLOAD_CONNECTIONS), restricted(load, refused, false), null, [], cores, refused, true),
      [{ text: 'refusals seen', pass: refused.count > 0 }, { text: `p99 < ${REFUSAL_P99_MS} ms`, pass: refused.count > 0 && refused.p99 < REFUSAL_P99_MS }],
    );
    refusedRow.note = `${((refused.count / Math.max(1, load.responses)) * 100).toFixed(1)}% of answers refused, counted from the bodies (HTTP 200 envelopes)`;
    // Server CPU is shared by both kinds of answer: per answer of either kind, not per accepted one.
    acceptedRow.serverMicrosPerRequest = refusedRow.serverMicrosPerRequest = (load.serverCores * 1e6) / load.requestsPerSecond;
    acceptedRow.note = `bound = 2 x (QUEUE_MAX + WORKERS) x p50 alone; an unbounded queue would give about ${OVERLOAD_CONNECTIONS} x ${aloneMs.toFixed(1)} ms`;
    const recoveryLimit = 2 * aloneMs + 1;
    const afterRow = withTargets(
      measuredRow(base('overload-recovery', 'overload: right after the load stops (1 conn.)', 1), after, null, [], cores),
      [
        { text: 'first request repaired', pass: recovery.firstOk },
        { text: `p50 < ${recoveryLimit.toFixed(1)} ms`, pass: after.byOutcome.ok.count > 0 && after.byOutcome.ok.p50 < recoveryLimit && after.byOutcome.ok.count === after.responses },
      ],
    );
    afterRow.note = `first request after the load: ${recovery.firstOk ? 'repaired' : `not repaired (${recovery.firstError})`} in ${recovery.firstMs.toFixed(1)} ms; ` +
      (recovery.repairedAfterMs === null ? `nothing repaired within ${RECOVERY_LIMIT_MS} ms` : `first repair ${recovery.repairedAfterMs.toFixed(0)} ms after the load stopped, after ${recovery.refusedBefore} refusals`);
    return { rows: [aloneRow, acceptedRow, refusedRow, afterRow], env: { ...OVERLOAD_ENV } };
  } finally {
    await server.stop();
  }
}

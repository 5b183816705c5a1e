// Drives one server with autocannon (every bench that loads a server over HTTP uses this one) and
// measures what the tables need. Latencies come from
// autocannon's per-response events (fractional ms; its own histogram has 1 ms resolution) and
// every answer is classified from its body, because the envelope contract answers errors such as
// SERVICE_UNAVAILABLE with HTTP 200: counting statuses would call a refusal a success.
import { machineBusySeconds } from './machine-cpu.js';
import { createRequire } from 'node:module';
import type { ServerProcess } from '../../support/server-process.js';

/** What an answer says: repaired, refused because the queue is full, or anything else. */
export type Outcome = 'ok' | 'unavailable' | 'failed';
const OUTCOMES: readonly Outcome[] = ['ok', 'unavailable', 'failed'];

export type Context = Record<string, unknown>;

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Per-connection body, built from what earlier answers left in the context (streaming sessions).
   * null skips the rest of the sequence: the connection starts over from the first request.
   */
  bodyFrom?: (context: Context) => string | null;
  /** Reads an answer into the connection's context (e.g. the session id a start returns). */
  remember?: (body: string, context: Context) => void;
  classify: (status: number, body: string) => Outcome;
  /** Input bytes this request asks to repair, for MB/s. */
  inputBytes: number;
}

export interface LoadSpec {
  url: string;
  /** Each connection sends these in turn, starting over at the end. */
  requests: readonly RequestSpec[];
  connections: number;
  pipelining: number;
  seconds: number;
  warmupSeconds: number;
  /** Requests a second offered in all (autocannon's overallRate); unset, as many as the server takes. */
  overallRate?: number;
  /**
   * Pause after the warm-up (default 1 s): its connections close with requests still queued or
   * sessions open, and the measurement should not start with the server still busy on them.
   */
  settleMs?: number;
}

const DEFAULT_SETTLE_MS = 1_000;

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
}

export interface LoadStats {
  seconds: number;
  responses: number;
  requestsPerSecond: number;
  /** Input megabytes (10^6 bytes) per second, counting the requests answered 'ok' (repaired). */
  inputMBps: number;
  /** Every answer, whatever it said (ms). */
  latency: Percentiles;
  byOutcome: Record<Outcome, Percentiles>;
  /** Latency of each request of the sequence, for short mixed sequences (up to MIXED_MAX). */
  byRequest: Percentiles[];
  /** Connection errors and timeouts (autocannon counts both as errors). */
  errors: number;
  non2xx: number;
  serverCores: number;
  /** Cores used by the server's HTTP (main, uWS) thread alone; absent when the target has several. */
  httpThreadCores?: number;
  loadgenCores: number;
  /** Cores the whole machine kept busy during the run (this run's own included); absent off Linux. */
  machineCores?: number;
}

interface AutocannonResult {
  errors: number;
  non2xx: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// Reused by every run; 4 M answers is far more than this machine serves in one run.
const latencies = new Float64Array(4_000_000);
const outcomes = new Uint8Array(latencies.length);
const requestIndexes = new Uint8Array(latencies.length);
const MIXED_MAX = 8;
let recorded = 0;
let repairedInputBytes = 0;
// onResponse (body) runs just before the 'response' event (time) of the same answer, synchronously.
let lastOutcome = 0;
let lastRequest = 0;
let current: AutocannonInstance | null = null;

/** Stops the autocannon run in progress, if any (Ctrl-C). */
export function stopLoad(): void {
  current?.stop();
}

function toAutocannonRequest(spec: RequestSpec, index: number, record: boolean): Record<string, unknown> {
  const outcomeIndex = (status: number, body: string): number => OUTCOMES.indexOf(spec.classify(status, body));
  return {
    method: spec.method,
    path: spec.path,
    headers: { 'content-type': 'application/json', ...spec.headers },
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    ...(spec.bodyFrom !== undefined ? { setupRequest: (req: Record<string, unknown>, context: Context) => {
      const body = spec.bodyFrom!(context);
      return body === null ? null : { ...req, body };
    } } : {}),
    onResponse: (status: number, body: string, context: Context) => {
      spec.remember?.(body, context);
      lastOutcome = outcomeIndex(status, body);
      lastRequest = index;
      if (record && lastOutcome === 0) repairedInputBytes += spec.inputBytes;
    },
  };
}

function options(spec: LoadSpec, seconds: number, record: boolean): Record<string, unknown> {
  return {
    url: spec.url,
    connections: spec.connections,
    pipelining: spec.pipelining,
    duration: seconds,
    ...(spec.overallRate === undefined ? {} : { overallRate: spec.overallRate }),
    requests: spec.requests.map((request, index) => toAutocannonRequest(request, index, record)),
  };
}

export function percentiles(values: Float64Array): Percentiles {
  const sorted = values.slice().sort();
  const at = (q: number): number => (sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!);
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999) };
}

async function drive(instance: AutocannonInstance): Promise<AutocannonResult> {
  current = instance;
  try {
    return await instance;
  } finally {
    current = null;
  }
}

/** What a run reads of its target: one server, or several measured as one (their CPU summed). */
export type LoadTarget = Pick<ServerProcess, 'url' | 'cpuSeconds' | 'exited'> & Partial<Pick<ServerProcess, 'httpThreadCpuSeconds'>>;

export async function runLoad(server: LoadTarget, spec: LoadSpec): Promise<LoadStats> {
  if (spec.warmupSeconds > 0) await drive(autocannon(options(spec, spec.warmupSeconds, false)));
  if (spec.warmupSeconds > 0) await new Promise((resolve) => setTimeout(resolve, spec.settleMs ?? DEFAULT_SETTLE_MS));
  recorded = 0;
  repairedInputBytes = 0;
  const serverCpuBefore = server.cpuSeconds();
  const httpCpuBefore = server.httpThreadCpuSeconds?.();
  const ownCpuBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const started = process.hrtime.bigint();
  const instance = autocannon(options(spec, spec.seconds, true));
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (recorded < latencies.length) {
      latencies[recorded] = ms;
      outcomes[recorded] = lastOutcome;
      requestIndexes[recorded++] = lastRequest;
    }
  });
  const result = await drive(instance);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const machineAfter = machineBusySeconds();
  const serverCpu = server.cpuSeconds() - serverCpuBefore;
  const httpCpu = httpCpuBefore === undefined ? undefined : server.httpThreadCpuSeconds!() - httpCpuBefore;
  if (server.exited()) throw new Error(`the server at ${server.url} exited during the run`);

  const all = latencies.subarray(0, recorded);
  const byOutcome = {} as Record<Outcome, Percentiles>;
  OUTCOMES.forEach((outcome, index) => {
    byOutcome[outcome] = percentiles(all.filter((_, i) => outcomes[i] === index));
  });
  const byRequest = spec.requests.length > MIXED_MAX ? [] : spec.requests.map((_, index) => percentiles(all.filter((_, i) => requestIndexes[i] === index)));
  return {
    seconds,
    responses: recorded,
    byRequest,
    requestsPerSecond: recorded / seconds,
    inputMBps: repairedInputBytes / 1e6 / seconds,
    latency: percentiles(all),
    byOutcome,
    errors: result.errors, // autocannon counts timeouts among its errors
    non2xx: result.non2xx,
    serverCores: serverCpu / seconds,
    ...(httpCpu === undefined ? {} : { httpThreadCores: httpCpu / seconds }),
    loadgenCores: (ownCpu.user + ownCpu.system) / 1e6 / seconds,
    ...(machineBefore === undefined || machineAfter === undefined ? {} : { machineCores: (machineAfter - machineBefore) / seconds }),
  };
}

/** autocannon is one thread: near a full core, the figures say more about it than the server. */
export const LOADGEN_BOUND_CORES = 0.85;

/** Who limited a run: the load generator, the machine (both cores busy), or neither. */
export function boundBy(stats: Pick<LoadStats, 'serverCores' | 'loadgenCores'>, cores: number): 'loadgen' | 'cpu' | '-' {
  if (stats.loadgenCores >= LOADGEN_BOUND_CORES) return 'loadgen';
  if (stats.serverCores + stats.loadgenCores >= cores * 0.9) return 'cpu';
  return '-';
}

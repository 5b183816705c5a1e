// Shared by the bench/http scripts: start a server process with its stdout in a file (reading a
// pipe would cost the load generator CPU), drive it with autocannon, measure its CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, openSync, closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVER_MAIN = fileURLToPath(new URL('../../server/main.js', import.meta.url));
export const ECHO_MAIN = fileURLToPath(new URL('./echo-server.js', import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux

export interface Process {
  url: string;
  child: ChildProcess;
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export async function startProcess(main: string, env: Record<string, string>): Promise<Process> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-bench-'));
  const logPath = join(dir, 'stdout.log');
  const fd = openSync(logPath, 'w');
  const child = spawn(process.execPath, [main], {
    // A throw-away DATA_DIR: the accounts database of a bench run is not the operator's ./data.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), ...env },
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const match = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(logPath, 'utf8'));
    if (match !== null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      return {
        url: match[1]!,
        child,
        cpuSeconds: () => cpuSecondsOf(child.pid!),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${main} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
}

/** The same for a process and every live descendant (a PROCESSES primary and its nodes). */
export function treeCpuSecondsOf(pid: number): number {
  let total = 0;
  try {
    total = cpuSecondsOf(pid);
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children === '' ? [] : children.split(' ')) total += treeCpuSecondsOf(Number(child));
    }
  } catch {
    // A process that exited meanwhile has no CPU left to add.
  }
  return total;
}

interface AutocannonResult {
  requests: { average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  serverCores: number;
}

/**
 * autocannon's own histogram has 1 ms resolution; latencies are collected from its response
 * events instead (fractional ms) and the percentiles taken exactly.
 */
/** `keys`: Authorization headers taken in turn, one per request (many keys, each under its rate limit). */
export async function load(target: Process, path: string, body: string, headers: Record<string, string>, connections: number, seconds: number, keys: readonly string[] = []): Promise<LoadResult> {
  let next = 0;
  const rotate = keys.length === 0 ? {} : {
    requests: [{ setupRequest: (request: { headers: Record<string, string> }) => ({ ...request, headers: { ...request.headers, authorization: keys[next++ % keys.length]! } }) }],
  };
  const options = { url: target.url + path, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, connections, ...rotate };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, connections, worker start
  const latencies = new Float64Array(5_000_000);
  let count = 0;
  const cpuBefore = target.cpuSeconds();
  const instance = autocannon({ ...options, duration: seconds });
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (count < latencies.length) latencies[count++] = ms;
  });
  const result = await instance;
  const cpu = target.cpuSeconds() - cpuBefore;
  const sorted = latencies.subarray(0, count).sort();
  const at = (q: number): number => sorted[Math.min(count - 1, Math.floor(q * count))] ?? NaN;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors: result.errors + result.timeouts + result.non2xx,
    serverCores: cpu / seconds,
  };
}

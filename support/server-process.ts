// Starts a server as a child process on a free port of 127.0.0.1, for the tests, the benches and
// the fuzzers alike: `node dist/server/main.js` (run `npm run build` first) or another entry point
// (the bare uWS echo server, the API_KEYS-only server). Its stdout and stderr go to files in a
// throw-away folder, because reading a pipe would cost a load generator CPU; `stdout()` reads them
// back. The folder also holds DATA_DIR unless the caller names one. Every child is registered, so
// `stopAll` (and the `installCleanup` hooks) never leave a server behind on a shared machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled, this file runs from dist/support/; under tap it runs from support/ as TypeScript.
const DIST = fileURLToPath(import.meta.url).includes('/dist/') ? new URL('../', import.meta.url) : new URL('../dist/', import.meta.url);
export const JSONMEND_MAIN = fileURLToPath(new URL('server/main.js', DIST));
export const ECHO_MAIN = fileURLToPath(new URL('bench/http/echo-server.js', DIST));
export const FASTIFY_MAIN = fileURLToPath(new URL('bench/http/fastify-server.js', DIST));

const CLOCK_TICKS = 100; // USER_HZ on Linux
const POLL_MS = 20;
const LISTENING = /listening on (http:\/\/[^\s"]+)/;

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** The environment it was started with (beyond the inherited one), for a results file. */
  readonly env: Readonly<Record<string, string>>;
  /** Everything the server printed on stdout so far. */
  stdout(): string;
  /** Everything the server printed on stderr so far. */
  stderr(): string;
  /** CPU seconds (user + system, all threads) used so far. */
  cpuSeconds(): number;
  /** CPU seconds of the main thread alone: the uWS thread that parses, answers and repairs inline. */
  httpThreadCpuSeconds(): number;
  /** CPU seconds of the live threads, to the nanosecond (liveThreadsCpuSecondsOf): for blocks too short for cpuSeconds' 10 ms ticks. */
  threadsCpuSeconds(): number;
  /** Whether the process has exited. */
  exited(): boolean;
  /** Sends the signal and resolves with the exit; SIGKILL after `graceMs`. Removes the folder. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

interface Child {
  child: ChildProcess;
  dir: string;
  env: Record<string, string>;
  output: { stdout: string; stderr: string } | null;
  exit: Promise<Exit>;
}

const running = new Set<Child>();

/** A fresh API key, new for every run (benches seed it with tier `unlimited`). */
export function generateKey(): string {
  return `bench_${randomBytes(18).toString('base64url')}`;
}

function spawnChild(main: string, env: Record<string, string>, nodeArgs: readonly string[] = []): Child {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-server-'));
  const fullEnv = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), ...env };
  const out = openSync(join(dir, 'stdout.log'), 'w');
  const err = openSync(join(dir, 'stderr.log'), 'w');
  const child = spawn(process.execPath, [...nodeArgs, main], { env: { ...process.env, ...fullEnv }, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  const exit = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const entry: Child = { child, dir, env: fullEnv, output: null, exit };
  running.add(entry);
  return entry;
}

function output(entry: Child, name: 'stdout' | 'stderr'): string {
  if (entry.output !== null) return entry.output[name];
  const path = join(entry.dir, `${name}.log`);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** Stops the child, keeps its output in memory and removes its folder. */
async function stopChild(entry: Child, signal: NodeJS.Signals, graceMs: number): Promise<Exit> {
  if (isRunning(entry.child)) {
    entry.child.kill(signal);
    const timer = setTimeout(() => entry.child.kill('SIGKILL'), graceMs);
    await entry.exit;
    clearTimeout(timer);
  }
  if (entry.output === null) {
    entry.output = { stdout: output(entry, 'stdout'), stderr: output(entry, 'stderr') };
    rmSync(entry.dir, { recursive: true, force: true });
    running.delete(entry);
  }
  return entry.exit;
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSecondsOf(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds of a process's main thread (its task id is the process id). */
export function mainThreadCpuSecondsOf(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * CPU seconds of a process's live threads, summed from each thread's schedstat (time on a CPU in
 * nanoseconds), where /proc/<pid>/stat counts in 10 ms ticks. A thread that exited is not counted:
 * for the difference over a block in which the process's threads stay (the server's workers do).
 */
export function liveThreadsCpuSecondsOf(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return ns / 1e9;
}

function statCpuSeconds(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
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

/** Starts `main` and resolves once it prints its "listening on" line. */
/** `nodeArgs` go to node before `main` (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept). */
export async function startServerProcess(main: string, env: Record<string, string> = {}, startTimeoutMs = 20_000, nodeArgs: readonly string[] = []): Promise<ServerProcess> {
  const entry = spawnChild(main, env, nodeArgs);
  const { child } = entry;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const match = LISTENING.exec(output(entry, 'stdout'));
    if (match !== null) {
      return {
        url: match[1]!,
        child,
        pid: child.pid!,
        env: entry.env,
        stdout: () => output(entry, 'stdout'),
        stderr: () => output(entry, 'stderr'),
        cpuSeconds: () => cpuSecondsOf(child.pid!),
        httpThreadCpuSeconds: () => mainThreadCpuSecondsOf(child.pid!),
        threadsCpuSeconds: () => liveThreadsCpuSecondsOf(child.pid!),
        exited: () => !isRunning(child),
        stop: (signal = 'SIGTERM', graceMs = 8_000) => stopChild(entry, signal, graceMs),
      };
    }
    if (!isRunning(child) || Date.now() > deadline) {
      const what = isRunning(child) ? `did not start in ${startTimeoutMs} ms` : 'exited before listening';
      const printed = output(entry, 'stdout') + output(entry, 'stderr');
      await stopChild(entry, 'SIGKILL', 0);
      throw new Error(`${main} ${what}:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Runs `main` with a configuration expected to be refused; resolves with its exit and output. */
export async function runToExit(main: string, env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = spawnChild(main, env);
  const timer = setTimeout(() => entry.child.kill('SIGKILL'), timeoutMs);
  const { code } = await entry.exit;
  clearTimeout(timer);
  await stopChild(entry, 'SIGKILL', 0);
  return { code, stdout: entry.output!.stdout, stderr: entry.output!.stderr };
}

export function startJsonmend(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess(JSONMEND_MAIN, env);
}

export function startEcho(): Promise<ServerProcess> {
  return startServerProcess(ECHO_MAIN, {});
}

/** Stops every server still running (used on errors and Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((entry) => stopChild(entry, 'SIGTERM', 8_000)));
}

/**
 * Ctrl-C or SIGTERM stops the servers before the process exits; a last-resort `exit` hook kills any
 * child still alive (synchronously: an exit handler cannot wait).
 */
export function installCleanup(onInterrupt: () => void): void {
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    onInterrupt();
    process.stderr.write(`\n${signal}: stopping the servers...\n`);
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  process.on('exit', () => {
    for (const { child, dir } of running) {
      if (isRunning(child)) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// The servers a bench run starts: jsonmend (node dist/server/main.js) and the bare uWS echo server.
// Every child is registered so that Ctrl-C, an error or a normal exit stops it; a run must never
// leave a server behind on a machine shared with other jobs.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const JSONMEND_MAIN = fileURLToPath(new URL('../../server/main.js', import.meta.url));
export const ECHO_MAIN = fileURLToPath(new URL('../http/echo-server.js', import.meta.url));

const CLOCK_TICKS = 100; // USER_HZ on Linux
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 8_000;
const LISTENING = /listening on (http:\/\/[^\s"]+)/;

export interface Server {
  readonly url: string;
  readonly pid: number;
  /** The environment it was started with (beyond the inherited one), for the results file. */
  readonly env: Readonly<Record<string, string>>;
  /** CPU seconds (user + system, all threads) used so far. */
  cpuSeconds(): number;
  /** Whether the process has exited (it should not during a run). */
  exited(): boolean;
  stop(): Promise<void>;
}

const running = new Set<{ child: ChildProcess; dir: string }>();

/** A fresh API key with tier `unlimited` (no rate limit, no quota), new for every run. */
export function generateKey(): string {
  return `bench_${randomBytes(18).toString('base64url')}`;
}

async function start(main: string, env: Record<string, string>): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-bench-suite-'));
  // stdout goes to a file: reading a pipe would cost the load generator's CPU.
  const logPath = join(dir, 'stdout.log');
  const fd = openSync(logPath, 'w');
  const fullEnv = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), ...env };
  const child = spawn(process.execPath, [main], { env: { ...process.env, ...fullEnv }, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  const entry = { child, dir };
  running.add(entry);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString();
  });
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exitedPromise;
      clearTimeout(timer);
    }
    running.delete(entry);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const match = LISTENING.exec(readFileSync(logPath, 'utf8'));
    if (match !== null) {
      return {
        url: match[1]!,
        pid: child.pid!,
        env: fullEnv,
        cpuSeconds: () => {
          const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
          return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
        },
        exited: () => child.exitCode !== null || child.signalCode !== null,
        stop,
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${main} did not start: ${stderr.trim() || 'no listening line'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function startJsonmend(env: Record<string, string>): Promise<Server> {
  return start(JSONMEND_MAIN, env);
}

export function startEcho(): Promise<Server> {
  return start(ECHO_MAIN, {});
}

/** Stops every server still running (used on errors and Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map(async ({ child, dir }) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await new Promise<void>((resolve) => child.once('exit', () => resolve()));
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }));
  running.clear();
}

/**
 * Ctrl-C or SIGTERM stops the servers before the bench exits; a last-resort `exit` hook kills any
 * child still alive (synchronously: an exit handler cannot wait).
 */
export function installCleanup(onInterrupt: () => void): void {
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    onInterrupt();
    process.stderr.write(`\n${signal}: stopping the bench servers...\n`);
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  process.on('exit', () => {
    for (const { child, dir } of running) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// Starts a throw-away redis-server for a test, a bench or `npm run cluster:local`: no TCP port, a
// unix socket in a temp dir, no persistence. Stopped by pid (never by name): in the teardown of the
// owner passed in, or by `close()`. `pause`/`resume` freeze it with SIGSTOP/SIGCONT, `stop`/`start`
// kill and restart it on the same socket (store-fault tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Teardown { teardown(fn: () => unknown): void }

export interface TestRedis {
  /** `unix:///…/redis.sock`, ready for REDIS_URL. */
  readonly url: string;
  readonly socket: string;
  pid(): number | undefined;
  pause(): void;
  resume(): void;
  /** SIGKILL, as a crash would. */
  stop(): Promise<void>;
  /** Starts it again on the same socket (empty: no persistence). */
  start(): Promise<void>;
  /** Stops it for good and removes its folder (what the owner's teardown does). */
  close(): Promise<void>;
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `t`: whose teardown stops it; without one, the caller calls `close()`. */
export async function startRedis(t?: Teardown): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-redis-'));
  const socket = join(dir, 'redis.sock');
  let child: ChildProcess | undefined;
  let log = '';
  const launch = async (): Promise<void> => {
    rmSync(socket, { force: true });
    child = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => existsSync(socket) || child!.exitCode !== null, 10_000, 'redis-server did not create its socket').catch((e: Error) => {
      throw new Error(`${e.message}\n${log}`);
    });
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${log}`);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGCONT');
    c.kill('SIGKILL');
    await exited;
  };
  await launch();
  const close = async (): Promise<void> => {
    await kill();
    rmSync(dir, { recursive: true, force: true });
  };
  t?.teardown(close);
  return {
    url: `unix://${socket}`,
    socket,
    pid: () => child?.pid,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    stop: kill,
    start: launch,
    close,
  };
}

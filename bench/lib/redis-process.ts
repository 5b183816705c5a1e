// A throw-away redis-server for a bench run (the tests have their own in test/helpers/, which is not
// compiled into dist/): a unix socket in a temp dir, no TCP port, no persistence; stopped by pid.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchRedis { url: string; stop(): Promise<void> }

export async function startBenchRedis(): Promise<BenchRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-bench-redis-'));
  const socket = join(dir, 'redis.sock');
  const child = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!existsSync(socket)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('redis-server did not start (is it installed?)');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `unix://${socket}`,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

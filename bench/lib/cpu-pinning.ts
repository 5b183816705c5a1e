// Keeps the load generator and the server under test on separate cores. On this 2-core machine,
// left to the scheduler, the same server measured 10.9k to 19.3k req/s from one run to the next
// (and fastify + jsonrepair 6.6k to 10k): the two processes' threads kept migrating and sharing a
// core. Pinned, five runs of the same build stayed within 4%. The bench process (autocannon, one
// thread) gets the last CPU, the server every other one; `taskset` (util-linux) does it, and where
// it is missing or fails nothing is pinned and the bench says so.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  /** What was done, for the bench's header line. */
  readonly description: string;
  /** Pins every thread of `pid` to the server's CPUs; false when it could not. */
  server(pid: number): boolean;
}

function taskset(cpus: string, pid: number): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process to the last CPU now and returns how to pin a server to the rest. */
export function pinLoadGenerator(enabled: boolean): Pinning {
  const cpus = availableParallelism();
  const none: Pinning = { description: 'not pinned', server: () => false };
  if (!enabled) return { ...none, description: 'not pinned (--no-pin)' };
  if (cpus < 2) return { ...none, description: 'not pinned (one CPU)' };
  const last = cpus - 1;
  const serverCpus = last === 1 ? '0' : `0-${last - 1}`;
  if (!taskset(String(last), process.pid)) return { ...none, description: 'not pinned (taskset failed or is missing)' };
  return {
    description: `load generator on CPU ${last}, server on CPU ${serverCpus}`,
    server: (pid) => taskset(serverCpus, pid),
  };
}

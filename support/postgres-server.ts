// Starts a throw-away PostgreSQL 15 for a test: initdb in a temp dir, listening on a unix socket in
// that dir and a free loopback port, fsync off. PostgreSQL refuses to run as root, so as root the dir
// is chowned to `postgres` and every command runs through `runuser -u postgres --`. Stopped in
// teardown by pid (SIGQUIT to the postmaster: an immediate shutdown), never by name.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

interface Teardown { teardown(fn: () => unknown): void }

export interface TestPostgres {
  /** `postgres://postgres@localhost/postgres?host=DIR&port=PORT` (unix socket: `host` wins), ready for DATABASE_URL. */
  readonly url: string;
  /** The same database over loopback TCP. */
  readonly tcpUrl: string;
  readonly port: number;
  pid(): number | undefined;
  /** An immediate shutdown (SIGQUIT), as a crash would look to clients. */
  stop(): void;
  /** Starts it again on the same dir, socket and port; data kept. */
  start(): void;
  /**
   * Freezes (SIGSTOP) or thaws (SIGCONT) the postmaster and every backend it started, found by
   * parent pid: a stalled database whose connections stay open and whose queries finish later.
   */
  signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** psql -c, as the postgres user, for assertions. */
  query(sql: string): string;
}

const asRoot = userInfo().uid === 0;

function run(command: string, args: string[]): string {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export async function startPostgres(t: Teardown): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = (): void => {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', `-k ${dir} -p ${port} -c fsync=off -c listen_addresses=127.0.0.1`, '-w', '-t', '30', 'start']);
  };
  const pid = (): number | undefined => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const stop = (): void => {
    const p = pid();
    if (p === undefined) return;
    try {
      process.kill(p, 'SIGQUIT');
    } catch {
      return;
    }
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      try {
        process.kill(p, 0);
      } catch {
        return;
      }
      spawnSync('sleep', ['0.05']);
    }
    process.kill(p, 'SIGKILL');
  };
  const signalAll = (signal: 'SIGSTOP' | 'SIGCONT'): void => {
    const p = pid();
    if (p === undefined) return;
    const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(p)], { encoding: 'utf8' }).stdout
      .split('\n').map((line) => Number(line.trim())).filter((n) => n > 0);
    for (const target of [p, ...children]) {
      try { process.kill(target, signal); } catch { /* gone already */ }
    }
  };
  start();
  // A test process that is killed (a tap timeout) never reaches its teardown: stop the server on
  // exit too, so no postmaster outlives the test.
  process.once('exit', stop);
  t.teardown(() => {
    process.off('exit', stop);
    signalAll('SIGCONT');
    stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    tcpUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    pid,
    stop,
    start,
    signalAll,
    query: (sql) => run('psql', ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc', sql]),
  };
}

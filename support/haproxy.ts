// Runs deploy/haproxy.cfg itself (Debian's haproxy) in front of two nodes for a test or a bench:
// the file's own environment variables name the nodes, a free loopback port and a stats socket in
// a temp dir. Foreground (-db), stopped by pid in teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

// From support/ (tests) or dist/support/ (benches, scripts, compiled): the repository's own file.
export const HAPROXY_CFG = [new URL('../deploy/haproxy.cfg', import.meta.url), new URL('../../deploy/haproxy.cfg', import.meta.url)]
  .map((url) => fileURLToPath(url)).find((path) => existsSync(path)) ?? 'deploy/haproxy.cfg';

interface Teardown { teardown(fn: () => unknown): void }

export interface ServerStat {
  /** UP, DOWN, DRAIN, MAINT, … */
  status: string;
  /** The last health check's result, for failure messages. */
  check: string;
  /** Requests (sessions, with http-server-close) sent to it since start. */
  total: number;
  current: number;
}

export interface TestHaproxy {
  readonly url: string;
  readonly child: ChildProcess;
  /** One command on the admin socket, its whole answer. */
  command(line: string): Promise<string>;
  /** `show stat` for the backend's servers, by name (node1, node2). */
  servers(): Promise<Map<string, ServerStat>>;
  /** Resolves once every server is UP (health checks passed). */
  waitUp(timeoutMs?: number): Promise<void>;
}

/** `port`: where HAProxy listens on 127.0.0.1; a free one when absent or 0. */
export async function startHaproxy(t: Teardown, node1: string, node2: string, port = 0): Promise<TestHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-haproxy-'));
  const socket = join(dir, 'stats.sock');
  if (port === 0) port = await freePort();
  const env = { ...process.env, JSONMEND_LISTEN: `127.0.0.1:${port}`, JSONMEND_NODE1: node1, JSONMEND_NODE2: node2, HAPROXY_STATS_SOCKET: socket };
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const until = Date.now() + 10_000;
  while (!existsSync(socket)) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`haproxy did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const command = (line: string): Promise<string> => new Promise((resolve, reject) => {
    let answer = '';
    const s = connect(socket, () => s.end(`${line}\n`));
    s.setEncoding('utf8').on('data', (d: string) => (answer += d)).on('end', () => resolve(answer)).on('error', reject);
  });
  const servers = async (): Promise<Map<string, ServerStat>> => {
    const [header, ...rows] = (await command('show stat')).trim().split('\n');
    const names = header!.replace(/^# /, '').split(',');
    const at = (row: string[], name: string): string => row[names.indexOf(name)] ?? '';
    const out = new Map<string, ServerStat>();
    for (const row of rows.map((r) => r.split(','))) {
      if (at(row, 'pxname') !== 'nodes' || at(row, 'svname') === 'BACKEND') continue;
      out.set(at(row, 'svname'), { status: at(row, 'status'), check: `${at(row, 'check_status')} ${at(row, 'last_chk')}`, total: Number(at(row, 'stot')), current: Number(at(row, 'scur')) });
    }
    return out;
  };
  const waitUp = async (timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stats = await servers();
      if ([...stats.values()].every((s) => s.status === 'UP') && stats.size === 2) return;
      if (Date.now() > deadline) throw new Error(`haproxy servers not UP: ${JSON.stringify([...stats])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { url: `http://127.0.0.1:${port}`, child, command, servers, waitUp };
}

/**
 * A fetch whose connections leave from `localAddress` (another loopback address, e.g. 127.0.0.2),
 * so the HAProxy in front of the nodes sees a client that is not the trusted proxy at 127.0.0.1.
 * Header values may be arrays: each is sent as a line of its own (a client's forged X-Forwarded-For).
 */
export function fetchFrom(localAddress: string) {
  return (url: string, init: { method?: string; headers?: Record<string, string | string[]>; body?: string | null } = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const sent = request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (part: string) => (text += part)).on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(answer.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one);
          }
          resolve(new Response(text === '' ? null : text, { status: answer.statusCode!, headers }));
        });
      });
      sent.on('error', reject);
      sent.end(init.body ?? undefined);
    });
}

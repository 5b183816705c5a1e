// Shared by the hardening tests: raw-socket exchanges, health checks, answer checks, server memory.
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { ERROR_CODES } from '../../server/contracts/error-codes.js';

export const KEY = 'hardening-test-key-0001';
export const AUTH = { authorization: `Bearer ${KEY}` };

export interface Assert {
  ok(value: unknown, message?: string): unknown;
  equal(a: unknown, b: unknown, message?: string): unknown;
}

export interface RawExchange {
  /** Everything the server sent. */
  data: Buffer;
  /** The server closed the connection (as opposed to our timeout ending the wait). */
  closedByServer: boolean;
  elapsedMs: number;
}

export interface RawOptions {
  /** Stop waiting after this long (then we close). */
  timeoutMs: number;
  /** Half-close after writing (FIN), as a client that gives up sending does. */
  endAfterWrite?: boolean;
  /** Resolve as soon as this many bytes have arrived. */
  stopAfterBytes?: number;
  /** Resolve as soon as what has arrived satisfies this (the answers awaited are complete). */
  stopWhen?: (data: Buffer) => boolean;
  /** Milliseconds between the pieces. */
  gapMs?: number;
}

/** Writes `pieces` to a fresh connection and collects what comes back until close or timeout. */
export function rawExchange(url: string, pieces: readonly (string | Buffer)[], options: RawOptions): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let received = 0;
    const started = performance.now();
    let settled = false;
    const finish = (closedByServer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closedByServer, elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (options.stopAfterBytes !== undefined && received >= options.stopAfterBytes) finish(false);
      else if (options.stopWhen?.(Buffer.concat(chunks)) === true) finish(false);
    });
    socket.on('error', () => {}); // a reset after the server's answer is expected here
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        socket.write(piece);
        if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs));
      }
      if (options.endAfterWrite === true && !socket.destroyed) socket.end();
    });
  });
}

/** A request head for a POST with a body of `length` bytes. */
export function postHead(path: string, length: number, extra: Record<string, string> = AUTH): string {
  const headers = Object.entries({ host: 'localhost', 'content-type': 'application/json', 'content-length': String(length), ...extra });
  return `POST ${path} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

export async function healthStatus(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.json() };
}

/** /health answers 200 "ok" within 5 s, with every pool worker alive (`label` names the step). */
export async function assertHealthy(t: Assert, url: string, label: string): Promise<void> {
  const { status, body } = await healthStatus(url);
  t.equal(status, 200, `${label}: /health 200`);
  t.equal(body.status, 'ok', `${label}: status ok`);
}

/** Waits until every pool worker is alive again (a crashed or stopped one is replaced). */
export async function waitForThreads(url: string, threads: number, withinMs = 15_000): Promise<boolean> {
  const until = performance.now() + withinMs;
  while (performance.now() < until) {
    if ((await healthStatus(url)).body.pool.threads === threads) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** The error code of an answer in either contract, or null for a success. */
export function errorCodeOf(body: any): string | null {
  if (body === null || typeof body !== 'object' || body.success === true || body.valid === true) return null;
  // The compact contract's 429 is `{error: <message>, retryAfter}` (spec), without a code.
  if (typeof body.error === 'string' && typeof body.retryAfter === 'number') return 'RATE_LIMIT_EXCEEDED';
  if (body.success === false || body.valid === false) return (body.metadata?.errors ?? body.errors)?.[0]?.code ?? 'no error listed';
  return null; // not a repair answer (health, usage)
}

const KNOWN_CODES = new Set(Object.keys(ERROR_CODES));

/** A JSON answer with its headers, and (for an error) a registered code and no stack trace. */
export function assertJsonAnswer(t: Assert, headers: Headers | Record<string, string>, text: string, label: string): any {
  const get = (name: string): string | null => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? null));
  t.equal(get('content-type'), 'application/json', `${label}: Content-Type`);
  t.equal(get('x-content-type-options'), 'nosniff', `${label}: nosniff`);
  t.ok(get('x-request-id'), `${label}: X-Request-ID`);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    t.ok(false, `${label}: body is JSON (${JSON.stringify(text.slice(0, 80))})`);
    return null;
  }
  const code = errorCodeOf(body);
  if (code !== null) t.ok(KNOWN_CODES.has(code), `${label}: registered error code ${code}`);
  t.ok(!/\n\s+at |\.ts:\d+|\.js:\d+|node:internal/.test(text), `${label}: no stack trace`);
  return body;
}

/** Resident set size of a process in MB (Linux `ps`). */
export function rssMb(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024;
}

/** Server stderr lines that are not expected noise. */
export function unexpectedStderr(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/ExperimentalWarning|--trace-warnings/.test(line));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

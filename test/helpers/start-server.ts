// Starts the real server (`node dist/server/main.js`, so run `npm run build` first) on a free
// port of 127.0.0.1 and stops it when the test ends, whatever happens.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));

interface Teardown { teardown(fn: () => unknown): void }

export interface StartedServer {
  url: string;
  child: ChildProcess;
  /** Everything the server printed on stdout so far. */
  stdout(): string;
  /** Everything the server printed on stderr so far. */
  stderr(): string;
  /** Sends the signal and resolves with the exit; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serverEnv(env: Record<string, string>, dataDir: string | undefined): NodeJS.ProcessEnv {
  return { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '1', ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }), ...env };
}

/** Unless the test names its own DATA_DIR, each server gets a throw-away one (never ./data). */
function tempDataDir(env: Record<string, string>): string | undefined {
  return env['DATA_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'jsonmend-test-data-')) : undefined;
}

export function startServer(t: Teardown, env: Record<string, string> = {}, startTimeoutMs = 15_000): Promise<StartedServer> {
  const dataDir = tempDataDir(env);
  const child = spawn(process.execPath, [MAIN], { env: serverEnv(env, dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    }
    return exited;
  };
  t.teardown(async () => {
    await stop('SIGKILL');
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${startTimeoutMs} ms:\n${stdout}${stderr}`)), startTimeoutMs);
    const onData = (): void => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ url: match[1]!, child, stdout: () => stdout, stderr: () => stderr, stop });
    };
    child.stdout!.on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${stdout}${stderr}`));
    });
  });
}

/** Runs the server with a configuration expected to be refused; resolves with its exit and output. */
export function expectRefusal(env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = tempDataDir(env);
  const child = spawn(process.execPath, [MAIN], { env: serverEnv(env, dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs a JSON body (an object is stringified; a string is sent as is). */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

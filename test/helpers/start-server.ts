// Starts the real server (`node dist/server/main.js`, so run `npm run build` first) on a free
// port of 127.0.0.1 and stops it when the test ends, whatever happens. The spawning itself is the
// benches' (support/server-process.ts); tests add quieter defaults: LOG_LEVEL=warn, WORKERS=1.
import { JSONMEND_MAIN, runToExit, startServerProcess, type ServerProcess } from '../../support/server-process.js';

interface Teardown { teardown(fn: () => unknown): void }

export type StartedServer = ServerProcess;

const TEST_DEFAULTS = { LOG_LEVEL: 'warn', WORKERS: '1' };

export async function startServer(t: Teardown, env: Record<string, string> = {}, startTimeoutMs = 15_000): Promise<StartedServer> {
  const server = await startServerProcess(JSONMEND_MAIN, { ...TEST_DEFAULTS, ...env }, startTimeoutMs);
  t.teardown(() => server.stop('SIGKILL'));
  return server;
}

/** Runs the server with a configuration expected to be refused; resolves with its exit and output. */
export function expectRefusal(env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToExit(JSONMEND_MAIN, { ...TEST_DEFAULTS, ...env }, timeoutMs);
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

// Shared by the test/accounts/http-*.test.ts files: they run the real server (dist/server/main.js)
// and the real key CLI (`jsonmend key`, dist/cli/jsonmend.js) against one SQLite file in a temp DATA_DIR.
import { generateApiKey } from '../../server/accounts/api-key.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { postJson, type JsonAnswer } from '../helpers/start-server.js';
import { sleep } from './helpers.js';

export const KEY_LINE = /^sk_live_[0-9A-Za-z]{32}$/;

/** `npm run key -- <args>`: the compiled CLI's `key` command, on `dataDir`. */
export function keyCli(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runCli(['key', ...args], { env: { DATA_DIR: dataDir } });
}

export const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

/** A fresh `sk_live_` key for API_KEYS, so seeded keys look like issued ones. */
export const newKey = generateApiKey;

export function repairAs(url: string, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return postJson(`${url}/v1/repair`, body, key === null ? headers : { authorization: `Bearer ${key}`, ...headers });
}

export function demo(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return postJson(`${url}/v1/demo/repair`, body, headers);
}

export async function usageOf(url: string, key: string): Promise<JsonAnswer> {
  const response = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
}

/** The three X-RateLimit-* headers (and Retry-After), as numbers; NaN when absent. */
export function limitHeaders(answer: JsonAnswer): { limit: number; remaining: number; reset: number; retryAfter: number } {
  const n = (name: string): number => Number(answer.headers.get(name) ?? NaN);
  return { limit: n('x-ratelimit-limit'), remaining: n('x-ratelimit-remaining'), reset: n('x-ratelimit-reset'), retryAfter: n('retry-after') };
}

export const errorCodeOf = (answer: JsonAnswer): string | undefined => answer.body?.metadata?.errors?.[0]?.code;

/**
 * Sends until the rate limit refuses, at most `tries` times. A limit that refills (GCRA: one a second
 * for a free key) may admit one more between a test's last refusal and its next request; that is
 * the limit working, so the test counts it (`admitted`) and checks the refusal that follows.
 */
export async function untilRefused(send: () => Promise<JsonAnswer>, tries = 3): Promise<{ answer: JsonAnswer; admitted: number }> {
  let admitted = 0;
  let answer = await send();
  while (admitted < tries - 1 && answer.status === 200 && answer.body?.success !== false && errorCodeOf(answer) === undefined) {
    admitted++;
    answer = await send();
  }
  return { answer, admitted };
}

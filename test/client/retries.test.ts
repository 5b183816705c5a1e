// Retries against the real server: a full repair queue (WORKERS=1, QUEUE_MAX=1, the test hook's slow
// marker keeping the pool busy) and a free key at its rate limit. Recoverable failures are retried
// with backoff, honouring Retry-After; non-recoverable ones never; maxRetries bounds the attempts.
import t from 'tap';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { Jsonmend, JsonmendError } from 'jsonmend/client';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

/** A fetch that records each attempt's first error code (or 'ok') and when it was answered. */
function recordingFetch(): { fetch: typeof fetch; attempts: { code: string; at: number; retryAfter: string | null }[] } {
  const attempts: { code: string; at: number; retryAfter: string | null }[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    const body = await response.clone().json().catch(() => null) as { metadata?: { errors?: { code: string }[] } } | null;
    attempts.push({ code: body?.metadata?.errors?.[0]?.code ?? 'ok', at: performance.now(), retryAfter: response.headers.get('retry-after') });
    return response;
  }) as typeof fetch;
  return { fetch: recording, attempts };
}

const slow = (ms: number): string => `{"note": "__JSONMEND_TEST_SLEEP_MS=${ms}__", "a": 1`;

t.test('SERVICE_UNAVAILABLE (queue full) is retried with backoff until the queue drains', async (t) => {
  const KEY = generateApiKey();
  const FREE = generateApiKey();
  const server = await startServer(t, {
    API_KEYS: `${KEY}:unlimited,${FREE}:free`, WORKERS: '1', QUEUE_MAX: '1', INLINE_MAX_BYTES: '0', TASK_TIMEOUT_MS: '5000', JSONMEND_TEST_HOOKS: '1',
  });
  const occupy = (): Promise<unknown> => Promise.all([
    postJson(`${server.url}/v1/repair`, { raw_output: slow(700) }, bearer(KEY)),
    postJson(`${server.url}/v1/repair`, { raw_output: slow(700) }, bearer(KEY)),
  ]);

  // No retries: the refusal is thrown as it came, recoverable.
  let busy = occupy();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const once = recordingFetch();
  const refused = await new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 0, fetch: once.fetch })
    .repair('{"b": 2').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(refused?.code, 'SERVICE_UNAVAILABLE');
  t.equal(refused?.recoverable, true);
  t.ok(refused?.requestId);
  t.equal(once.attempts.length, 1, 'maxRetries: 0 makes one attempt');
  await busy;

  // With retries: refused while the pool is busy, then served.
  busy = occupy();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const retried = recordingFetch();
  const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 10, retryBaseMs: 200, retryMaxDelayMs: 400, fetch: retried.fetch });
  const answer = await jm.repair('{"b": 2');
  t.same(answer.repaired, { b: 2 });
  const codes = retried.attempts.map((a) => a.code);
  t.equal(codes[0], 'SERVICE_UNAVAILABLE', 'the first attempt found the queue full');
  t.equal(codes.at(-1), 'ok');
  t.ok(codes.length >= 2 && codes.length <= 11, `${codes.length} attempts: ${codes.join(', ')}`);
  await busy;

  // A limited key's answers all carry X-RateLimit-Reset (when its whole burst is back: a second per
  // request used on the free tier); a full queue is still retried on the backoff, not on that.
  const FREE_URL = `${server.url}/v1/repair`;
  for (let i = 0; i < 20; i++) await postJson(FREE_URL, { raw_output: '{}' }, bearer(FREE));
  busy = occupy();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const limited = recordingFetch();
  const freeStarted = performance.now();
  const served = await new Jsonmend({ apiKey: FREE, baseUrl: server.url, maxRetries: 10, retryBaseMs: 200, retryMaxDelayMs: 400, fetch: limited.fetch }).repair('{"c": 3');
  t.same(served.repaired, { c: 3 });
  t.equal(limited.attempts[0]!.code, 'SERVICE_UNAVAILABLE');
  t.ok(performance.now() - freeStarted < 8_000, `served after ${(performance.now() - freeStarted).toFixed(0)} ms, not at X-RateLimit-Reset (~20 s away)`);
  await busy;

  // Retries run out: the last refusal is thrown with the number of attempts.
  busy = occupy();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const few = recordingFetch();
  const exhausted = await new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 2, retryBaseMs: 1, fetch: few.fetch })
    .repair('{"b": 2').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(exhausted?.code, 'SERVICE_UNAVAILABLE');
  t.equal(exhausted?.attempts, 3);
  t.equal(few.attempts.length, 3, 'at most maxRetries retries');
  await busy;

  // The caller's signal ends the backoff wait at once.
  busy = occupy();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const controller = new AbortController();
  const patient = new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 5, retryBaseMs: 30_000, retryMaxDelayMs: 30_000 });
  const abortStarted = performance.now();
  setTimeout(() => controller.abort(), 300);
  const abortedError = await patient.repair('{"b": 2', { signal: controller.signal }).then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(abortedError?.code, 'ABORTED');
  t.equal(abortedError?.recoverable, false);
  t.ok(performance.now() - abortStarted < 10_000, 'not the 30 s backoff');
  await busy;
});

t.test('a timeout is retried; a repair that keeps timing out throws TIMEOUT', async (t) => {
  const KEY = generateApiKey();
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, INLINE_MAX_BYTES: '0', JSONMEND_TEST_HOOKS: '1', TASK_TIMEOUT_MS: '5000' });
  const timeouts = recordingFetch();
  const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url, timeoutMs: 150, maxRetries: 1, retryBaseMs: 1, fetch: timeouts.fetch });
  const error = await jm.repair(slow(600)).then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(error?.code, 'TIMEOUT');
  t.equal(error?.recoverable, true);
  t.equal(error?.attempts, 2);
});

t.test('network errors are retried, then thrown as NETWORK_ERROR', async (t) => {
  const closed = await startServer(t);
  const url = closed.url;
  await closed.stop();
  const error = await new Jsonmend({ apiKey: generateApiKey(), baseUrl: url, maxRetries: 2, retryBaseMs: 1 })
    .repair('{}').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(error?.code, 'NETWORK_ERROR');
  t.equal(error?.recoverable, true);
  t.equal(error?.attempts, 3);
  t.equal(error?.requestId, null, 'nothing answered');
  t.match(error?.message, /ECONNREFUSED/);
});

t.test('RATE_LIMIT_EXCEEDED: a free key at its limit waits for Retry-After, then is served', async (t) => {
  const FREE = generateApiKey();
  const server = await startServer(t, { API_KEYS: `${FREE}:free`, DEMO_LIMIT_PER_HOUR: '1' });
  // Spend the burst (60 a minute, one refilled per second) until the server refuses.
  for (let i = 0; i < 80; i++) {
    const answer = await postJson(`${server.url}/v1/repair`, { raw_output: '{}' }, bearer(FREE));
    if (answer.body.metadata.errors[0]?.code === 'RATE_LIMIT_EXCEEDED') break;
  }
  const rec = recordingFetch();
  const started = performance.now();
  const answer = await new Jsonmend({ apiKey: FREE, baseUrl: server.url, maxRetries: 3, retryBaseMs: 50, fetch: rec.fetch }).repair('{"a": 1');
  t.same(answer.repaired, { a: 1 });
  const [first, ...rest] = rec.attempts;
  t.equal(first!.code, 'RATE_LIMIT_EXCEEDED');
  const waitMs = Number(first!.retryAfter) * 1000;
  t.ok(waitMs >= 1000, `Retry-After ${first!.retryAfter} s`);
  t.equal(rest.at(-1)!.code, 'ok');
  t.ok(rest[0]!.at - first!.at >= waitMs - 50, `the retry came ${(rest[0]!.at - first!.at).toFixed(0)} ms later, after Retry-After`);
  t.ok(performance.now() - started < waitMs * 3 + 2000, 'and not much later');

  // A wait longer than maxRetryWaitMs is not waited for: the demo's hourly limit is thrown at once.
  const keyless = new Jsonmend({ baseUrl: server.url, maxRetries: 3 });
  await keyless.demoRepair('{}');
  const demoStarted = performance.now();
  const limited = await keyless.demoRepair('{}').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(limited?.code, 'RATE_LIMIT_EXCEEDED');
  t.equal(limited?.recoverable, true);
  t.ok(limited!.retryAfterMs! > 60_000, `the server asked for ${limited?.retryAfterMs} ms`);
  t.equal(limited?.attempts, 1);
  t.ok(performance.now() - demoStarted < 1000, 'thrown without waiting');
});

// One POST to the service, with a per-attempt timeout, its answer read as the envelope contract,
// and retries. What is retried depends on whether repeating the request is safe:
// - 'recoverable': every recoverable failure (RATE_LIMIT_EXCEEDED, SERVICE_UNAVAILABLE, network
//   errors, timeouts, a busy proxy) — for requests that may be repeated (repair, start).
// - 'refusals': only answers proving the request was not acted on (RATE_LIMIT_EXCEEDED,
//   SERVICE_UNAVAILABLE) — for push and finalize, where a lost answer leaves it unknown whether
//   the chunk was added; repairStream recovers those by starting over in a new session.
// SESSION_NOT_FOUND is recoverable only by a new session, so the same request is never repeated.
import type { RepairError, RepairResponse } from '../engine/types.js';
import { JsonmendError, REPAIR_FAILURES } from './errors.js';
import { backoffMs, serverWaitMs, sleep, type RetryPolicy } from './retry.js';

export type RetryOn = 'recoverable' | 'refusals';

export interface TransportConfig {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  fetch: typeof fetch;
  retry: RetryPolicy;
}

export interface CallOptions {
  /** Send the API key (every endpoint but the demo). */
  auth: boolean;
  retryOn: RetryOn;
  /** A repair's own failure (REPAIR_FAILURES) is the answer, not an error. */
  resultOnFailure: boolean;
  signal?: AbortSignal | undefined;
}

const REFUSALS: ReadonlySet<string> = new Set(['RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE']);
const BUSY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

function retryable(error: JsonmendError, retryOn: RetryOn): boolean {
  if (!error.recoverable || error.code === 'SESSION_NOT_FOUND') return false;
  return retryOn === 'recoverable' || REFUSALS.has(error.code);
}

function failureOf(body: unknown): RepairError | null {
  if (typeof body !== 'object' || body === null) return null;
  const answer = body as Partial<RepairResponse>;
  if (answer.success !== false) return null;
  return answer.metadata?.errors?.[0] ?? null;
}

export async function call<T>(config: TransportConfig, path: string, body: unknown, options: CallOptions): Promise<T> {
  const { retry } = config;
  for (let attempt = 0; ; attempt++) {
    try {
      return await once<T>(config, path, body, options, attempt + 1);
    } catch (error) {
      if (!(error instanceof JsonmendError) || attempt >= retry.maxRetries || !retryable(error, options.retryOn)) throw error;
      const hint = error.retryAfterMs;
      if (hint !== null && hint > retry.maxWaitMs) throw error;
      // The jitter is at most the wait asked for: a push over its push rate waits milliseconds, not a quarter second.
      const wait = hint === null ? backoffMs(attempt, retry) : hint + Math.min(hint, backoffMs(0, retry));
      try {
        await sleep(wait, options.signal);
      } catch (reason) {
        throw aborted(reason, attempt + 1);
      }
    }
  }
}

/** fetch's "fetch failed" names its reason only in `cause` (ECONNREFUSED, ENOTFOUND…). */
function describe(cause: unknown): string {
  const message = (cause as Error)?.message ?? String(cause);
  const code = ((cause as { cause?: { code?: unknown } })?.cause)?.code;
  return typeof code === 'string' ? `${message} (${code})` : message;
}

function aborted(reason: unknown, attempts: number): JsonmendError {
  return new JsonmendError({ code: 'ABORTED', message: 'The request was aborted.', recoverable: false, attempts, cause: reason });
}

async function once<T>(config: TransportConfig, path: string, body: unknown, options: CallOptions, attempts: number): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, config.timeoutMs);
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.auth && config.apiKey !== undefined) headers['authorization'] = `Bearer ${config.apiKey}`;
  let response: Response;
  let text: string;
  try {
    if (options.signal?.aborted) throw options.signal.reason;
    response = await config.fetch(config.baseUrl + path, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
    text = await response.text();
  } catch (cause) {
    if (options.signal?.aborted) throw aborted(cause, attempts);
    throw new JsonmendError(timedOut
      ? { code: 'TIMEOUT', message: `No answer from ${config.baseUrl}${path} within ${config.timeoutMs} ms.`, recoverable: true, attempts, cause }
      : { code: 'NETWORK_ERROR', message: `Could not reach ${config.baseUrl}${path}: ${describe(cause)}`, recoverable: true, attempts, cause });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }

  const requestId = response.headers.get('x-request-id');
  const status = response.status;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const failure = failureOf(parsed);
  if (failure !== null) {
    if (options.resultOnFailure && REPAIR_FAILURES.has(failure.code)) return parsed as T;
    throw new JsonmendError({
      code: failure.code, message: failure.message, recoverable: failure.recoverable === true,
      requestId, status, error: failure, retryAfterMs: serverWaitMs(response.headers, failure.code === 'RATE_LIMIT_EXCEEDED'), attempts,
    });
  }
  if (parsed === undefined || !response.ok) {
    throw new JsonmendError({
      code: 'BAD_RESPONSE',
      message: `Unexpected answer from ${config.baseUrl}${path} (HTTP ${status}): ${text.slice(0, 200)}`,
      recoverable: BUSY_STATUSES.has(status), requestId, status, retryAfterMs: serverWaitMs(response.headers, status === 429), attempts,
    });
  }
  return parsed as T;
}

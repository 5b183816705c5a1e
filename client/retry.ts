// How long to wait before the next attempt. The service's own hint wins (Retry-After, else
// X-RateLimit-Reset for a rate limit); without one, exponential backoff with full jitter: a uniform draw in
// [0, min(cap, base · 2^attempt)], so clients refused together do not come back together.

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** The first backoff's upper bound. */
  baseDelayMs: number;
  /** No backoff draw exceeds this. */
  maxDelayMs: number;
  /** A service asking for a longer wait than this is not retried: the error is thrown at once. */
  maxWaitMs: number;
}

export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/**
 * The wait the answer asks for, in ms, or null. Retry-After-Ms (a push over its session's push rate
 * waits milliseconds, which Retry-After's whole seconds would round up to one) comes first;
 * Retry-After is seconds or an HTTP date. Only a rate
 * limit refusal (`rateLimited`) falls back to X-RateLimit-Reset: every limited answer carries it, and
 * it says when the whole limit is back, which is no reason to wait on a full queue.
 */
export function serverWaitMs(headers: Headers, rateLimited: boolean, now = Date.now()): number | null {
  const retryAfterMs = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return retryAfterMs;
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  if (!rateLimited) return null;
  const reset = Number(headers.get('x-ratelimit-reset') ?? NaN);
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : null;
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

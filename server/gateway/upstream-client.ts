// The gateway's connection to its upstream model API: one undici Pool of keep-alive connections to
// UPSTREAM_URL's origin, shared by every request of this process (docs/gateway.md "Limits").
// UPSTREAM_TIMEOUT_MS bounds the wait for the response headers and then every gap between body
// chunks (a stream that stalls is cut, one that keeps flowing is not).
import { Pool, errors, type Dispatcher } from 'undici';
import type { Config } from '../config/load-config.js';

export type UpstreamFailure = 'UPSTREAM_UNREACHABLE' | 'UPSTREAM_TIMEOUT';

export interface UpstreamCall {
  body: Uint8Array;
  requestId: string;
  /** The caller's own upstream credential (X-Upstream-Authorization), when the operator allows it. */
  callerAuthorization: string | null;
  signal: AbortSignal;
}

export class UpstreamClient {
  readonly #pool: Pool;
  readonly #path: string;
  readonly #authorization: string | null;

  constructor(config: Config & { upstreamUrl: string }) {
    const base = new URL(config.upstreamUrl);
    this.#path = `${base.pathname}/chat/completions`;
    this.#authorization = config.upstreamApiKey === null ? null : `Bearer ${config.upstreamApiKey}`;
    this.#pool = new Pool(base.origin, {
      connections: 256,
      keepAliveTimeout: 30_000,
      headersTimeout: config.upstreamTimeoutMs,
      bodyTimeout: config.upstreamTimeoutMs,
    });
  }

  /** Sends the caller's body as it came. Rejects on an abort, an unreachable upstream or a timeout. */
  send(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': call.requestId,
    };
    const authorization = call.callerAuthorization ?? this.#authorization;
    if (authorization !== null) headers['authorization'] = authorization;
    return this.#pool.request({ path: this.#path, method: 'POST', headers, body: call.body, signal: call.signal });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Which gateway error an upstream failure is: a timeout, or anything else that left no answer. */
export function failureOf(error: unknown): UpstreamFailure {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNREACHABLE';
}

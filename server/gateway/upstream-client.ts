// The gateway's connection to its upstream model API: one undici Pool of keep-alive connections to
// UPSTREAM_URL's origin, shared by every request of this process (docs/gateway.md "Limits").
// UPSTREAM_TIMEOUT_MS bounds the wait for the response headers and then every gap between body
// chunks (a stream that stalls is cut, one that keeps flowing is not).
// Calls go through undici's dispatch interface with a handler of our own rather than `request()`:
// `request()` builds an async resource, a Readable stream, a promise and (for the abort) an
// AbortController per call, which cost more CPU than the rest of the gateway's own work on a 1 KB
// answer (bench/gateway/run.ts). The handler receives the status, the headers and each body chunk
// as undici parses them, and pauses, resumes or aborts the socket read directly.
import { Pool, errors, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../config/load-config.js';

export type UpstreamFailure = 'UPSTREAM_UNREACHABLE' | 'UPSTREAM_TIMEOUT';

export interface UpstreamCall {
  body: Uint8Array;
  requestId: string;
  /** The caller's own upstream credential (X-Upstream-Authorization), when the operator allows it. */
  callerAuthorization: string | null;
}

/** What the caller does with the upstream's answer as it arrives; nothing is called after abort(). */
export interface UpstreamListener {
  /** The final status and headers (informational 1xx answers are skipped). */
  started(status: number, headers: IncomingHttpHeaders): void;
  /** A piece of the body; return false to pause reading until resume(). */
  piece(chunk: Buffer): boolean;
  /** The body is complete. */
  ended(): void;
  /** No answer, or the body was cut: the connection failed, timed out or was reset. */
  failed(error: Error): void;
}

/** One call in flight: its socket read paused or resumed by backpressure, or aborted. */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #aborted = false;

  constructor(private readonly listener: UpstreamListener) {}

  /** Stops the call (the client went away): the request is cancelled, nothing more is reported. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort(new errors.RequestAbortedError());
  }

  /** Reads on after piece() returned false (the client drained what it held). */
  resume(): void {
    this.#controller?.resume();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#aborted) controller.abort(new errors.RequestAbortedError()); // gone before it was sent
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status >= 200 && !this.#aborted) this.listener.started(status, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.#aborted && !this.listener.piece(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (!this.#aborted) this.listener.ended();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.#aborted) this.listener.failed(error);
  }
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

  /** Sends the caller's body as it came; the answer reaches `listener` as it arrives. */
  send(call: UpstreamCall, listener: UpstreamListener): UpstreamExchange {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': call.requestId,
    };
    const authorization = call.callerAuthorization ?? this.#authorization;
    if (authorization !== null) headers['authorization'] = authorization;
    const exchange = new UpstreamExchange(listener);
    this.#pool.dispatch({ path: this.#path, method: 'POST', headers, body: call.body }, exchange);
    return exchange;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Which gateway error an upstream failure is: a timeout, or anything else that left no answer. */
export function failureOf(error: unknown): UpstreamFailure {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNREACHABLE';
}

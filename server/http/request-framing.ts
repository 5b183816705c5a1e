// Refuses requests whose body length two parties could read differently (RFC 9112 6.1, 6.3): the
// classic request smuggling behind a proxy that picks the other reading. uWS takes the first of two
// Content-Length headers and treats any Transfer-Encoding value as chunked, so the checks are ours:
//   - Content-Length given twice with different values;
//   - Transfer-Encoding given twice, or with any value but exactly `chunked` (`xchunked`,
//     `gzip, chunked`, `chunked, identity`, `Chunked`).
// Such a request gets HTTP 400 INVALID_REQUEST and its connection is closed. What uWS drops before
// the application sees it (Transfer-Encoding with Content-Length, HTTP/1.0, no Host, ...) is in
// docs/reliability.md "Requests uWS refuses on its own".
import { makeError } from '../contracts/error-codes.js';
import { fallbackContract } from '../contracts/contract.js';
import { renderError } from '../contracts/render.js';
import type { HttpRequest, HttpResponse } from './load-uws.js';
import type { HttpContext } from './http-context.js';
import { requestIdFor } from './request-id.js';
import { JSON_TYPE, writeAnswer } from './response-writer.js';
import { observeNonRepair } from './simple-answer.js';

/** Route name of these refusals in logs and metrics. */
export const BAD_FRAMING_ROUTE = 'bad_framing';

/** Why this request's framing is ambiguous, or null when it is not. Call inside the uWS handler. */
export function framingProblem(req: HttpRequest): string | null {
  let lengthValue: string | null = null;
  let lengthsDiffer = false;
  let encodings = 0;
  let encodingOtherThanChunked = false;
  req.forEach((key, value) => {
    // uWS hands keys lower-cased and values trimmed of surrounding spaces and tabs.
    if (key === 'content-length') {
      if (lengthValue === null) lengthValue = value;
      else if (value !== lengthValue) lengthsDiffer = true;
    } else if (key === 'transfer-encoding') {
      encodings++;
      if (value !== 'chunked') encodingOtherThanChunked = true;
    }
  });
  if (lengthsDiffer) return 'Content-Length is given more than once with different values.';
  if (encodings > 1) return 'Transfer-Encoding is given more than once.';
  if (encodingOtherThanChunked) return 'Transfer-Encoding must be exactly "chunked"; no other coding is accepted.';
  return null;
}

/**
 * A 400 sent on the next turn of the event loop, not inside the handler: uWS carries on parsing the
 * bytes it has already read while the handler's answer waits in its cork buffer, so an answer
 * written now would let a request smuggled behind this one be served. With this answer pending,
 * uWS closes the connection on such a request instead (the client then sees no answer at all).
 */
class FramingRefusal {
  readonly #start = performance.now();
  readonly #time = Date.now();
  #aborted = false;

  constructor(
    private readonly ctx: HttpContext,
    private readonly res: HttpResponse,
    private readonly requestId: string,
    private readonly problem: string,
  ) {}

  readonly onAborted = (): void => {
    this.#aborted = true;
  };

  readonly answer = (): void => {
    if (this.#aborted) {
      this.#observe(0, 'aborted');
      return;
    }
    const error = makeError('INVALID_REQUEST', `Ambiguous request framing: ${this.problem}`);
    const rendered = renderError(error, fallbackContract(this.ctx.config.contract), null, 0, 400);
    this.res.cork(() => writeAnswer(this.res, 400, JSON_TYPE, rendered.body, this.requestId, null, true));
    this.#observe(400, 'INVALID_REQUEST');
  };

  #observe(status: number, outcome: string): void {
    observeNonRepair(this.ctx, BAD_FRAMING_ROUTE, this.requestId, null, this.#time, this.#start, status, outcome);
    this.ctx.lifecycle.end();
  }
}

/** Wraps a route handler so that every request is checked before the route sees it. */
export function withFramingCheck(
  ctx: HttpContext,
  handler: (res: HttpResponse, req: HttpRequest) => void,
): (res: HttpResponse, req: HttpRequest) => void {
  return (res, req) => {
    const problem = framingProblem(req);
    if (problem === null) {
      handler(res, req);
      return;
    }
    ctx.lifecycle.begin();
    const refusal = new FramingRefusal(ctx, res, requestIdFor(req.getHeader('x-request-id')), problem);
    res.onAborted(refusal.onAborted);
    setImmediate(refusal.answer);
  };
}

// One console API request over uWS: the headers it needs (read synchronously, as uWS requires),
// a small JSON body, and one answer written inside res.cork() after the async work. In-flight
// counting, aborts, answering once and body reading are the shared request lifecycle's (BodyRequest).
import { BodyRequest, contentLengthOf } from '../../http/body-request.js';
import type { HeaderList } from '../../http/response-writer.js';
import type { HttpContext } from '../../http/http-context.js';
import { requestIdFor } from '../../http/request-id.js';
import type { HttpRequest, HttpResponse } from '../../http/load-uws.js';
import { observeWeb, writeWebAnswer } from '../web-answer.js';
import { CONSOLE_ERRORS, consoleFailure, type ConsoleFailure } from './console-errors.js';
import { sessionIdFrom } from './cookies.js';
import { CSRF_HEADER } from './csrf.js';

/** Bodies are a few fields (email, password, key name); anything larger is not ours. */
export const CONSOLE_BODY_LIMIT = 16 * 1024;
const JSON_CONTENT = /^application\/json\s*(?:;|$)/i;

export interface ConsoleReply {
  status: number;
  body: unknown;
  /** A Set-Cookie value (sign-in, sign-out, a first visit). */
  cookie?: string;
}

export class ConsoleExchange extends BodyRequest {
  readonly time = Date.now();
  readonly start = performance.now();
  readonly requestId: string;
  readonly sid: string;
  readonly csrfToken: string;
  readonly origin: string;
  readonly fetchSite: string;
  readonly host: string;
  readonly contentType: string;
  readonly contentLength: number;
  readonly clientIp: string;
  /** The client reached the proxy over HTTPS: the cookie gets Secure. */
  readonly secure: boolean;
  #body: Promise<Buffer | 'too-large'> | undefined;

  constructor(res: HttpResponse, req: HttpRequest, ctx: HttpContext, readonly route: string) {
    super(res, ctx);
    this.requestId = requestIdFor(req.getHeader('x-request-id'));
    this.sid = sessionIdFrom(req.getHeader('cookie'));
    this.csrfToken = req.getHeader(CSRF_HEADER);
    this.origin = req.getHeader('origin');
    this.fetchSite = req.getHeader('sec-fetch-site');
    this.host = req.getHeader('host');
    this.contentType = req.getHeader('content-type');
    this.contentLength = contentLengthOf(req.getHeader('content-length'));
    this.clientIp = ctx.clientIp.resolveRequest(res, req);
    this.secure = req.getHeader('x-forwarded-proto').toLowerCase() === 'https';
  }

  /**
   * Starts taking in the body (uWS hands body chunks only to a reader attached before the handler
   * returns); readJson() then judges it. Chunks past the limit are not kept.
   */
  collectBody(): void {
    this.#body ??= new Promise((resolve) => {
      this.readBody(CONSOLE_BODY_LIMIT, this.contentLength, (body) => resolve(body ?? 'too-large'));
    });
  }

  /** Reads the JSON body; resolves undefined after answering a body that is too large, not JSON, or not an object. */
  async readJson(): Promise<Record<string, unknown> | undefined> {
    if (!JSON_CONTENT.test(this.contentType)) return this.#refuse(consoleFailure('UNSUPPORTED_MEDIA_TYPE'));
    if (this.contentLength > CONSOLE_BODY_LIMIT) return this.#refuse(consoleFailure('BODY_TOO_LARGE'));
    this.collectBody();
    const body = await this.#body!;
    if (body === 'too-large') return this.#refuse(consoleFailure('BODY_TOO_LARGE'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return this.#refuse(consoleFailure('INVALID_REQUEST', 'The body must be a JSON object.'));
  }

  reply(reply: ConsoleReply): void {
    const headers: Array<[string, string]> = [['Content-Type', 'application/json'], ['Cache-Control', 'no-store']];
    if (reply.cookie !== undefined) headers.push(['Set-Cookie', reply.cookie]);
    this.#write(reply.status, headers, JSON.stringify(reply.body), 'ok');
  }

  fail(failure: ConsoleFailure, cookie?: string): void {
    const entry = CONSOLE_ERRORS[failure.code];
    const headers: Array<[string, string]> = [['Content-Type', 'application/json'], ['Cache-Control', 'no-store']];
    if (failure.retryAfterSeconds !== undefined) headers.push(['Retry-After', String(failure.retryAfterSeconds)]);
    if (cookie !== undefined) headers.push(['Set-Cookie', cookie]);
    const body = JSON.stringify({ error: { code: failure.code, message: failure.message } });
    this.#write(entry.status, headers, body, entry.outcome);
  }

  #refuse(failure: ConsoleFailure): Promise<undefined> {
    this.fail(failure);
    return Promise.resolve(undefined);
  }

  #write(status: number, headers: HeaderList, body: string, outcome: string): void {
    if (!this.claimAnswer()) return;
    this.res.cork(() => writeWebAnswer(this.res, status, headers, body, this.requestId, this.ctx.lifecycle.draining));
    this.#observe(status, outcome);
    this.answered();
  }

  protected override recordAbort(): void {
    this.#observe(0, 'aborted');
  }

  #observe(status: number, outcome: string): void {
    observeWeb(this.ctx, this.route, this.requestId, this.time, this.start, status, outcome);
  }
}

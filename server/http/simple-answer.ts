// Handlers that answer at once from the request line alone: GET endpoints, 404 and 405.
import { makeError } from '../contracts/error-codes.js';
import { fallbackContract } from '../contracts/contract.js';
import { renderError } from '../contracts/render.js';
import { NO_COUNTS } from '../observe/request-record.js';
import type { HttpRequest, HttpResponse } from './load-uws.js';
import { notifyObservers, type HttpContext } from './http-context.js';
import { requestIdFor } from './request-id.js';
import { writeAnswer, JSON_TYPE, type HeaderList } from './response-writer.js';

export interface SimpleAnswer {
  status: number;
  contentType: string;
  body: string;
  headers: HeaderList | null;
}

/** Tells the observers (logs, metrics, metadata) about an answer that involved no repair. */
export function observeNonRepair(
  ctx: HttpContext, route: string, requestId: string, keyId: string | null, time: number, start: number, status: number, outcome: string,
): void {
  notifyObservers(ctx, {
    time,
    requestId,
    route,
    keyId,
    accountId: null, // nothing answered here is counted against an account
    contract: null,
    status,
    outcome,
    confidence: null,
    repairCounts: NO_COUNTS,
    inputBytes: 0,
    latencyMs: performance.now() - start,
    execution: 'none',
  });
}

export function answerAtOnce(ctx: HttpContext, routeName: string, res: HttpResponse, req: HttpRequest, answer: SimpleAnswer, outcome: string): void {
  const start = performance.now();
  const requestId = requestIdFor(req.getHeader('x-request-id'));
  writeAnswer(res, answer.status, answer.contentType, answer.body, requestId, answer.headers, ctx.lifecycle.draining);
  observeNonRepair(ctx, routeName, requestId, null, Date.now(), start, answer.status, outcome);
}

/** 404 and 405 answer in the configured contract's failure shape (auto: envelope). */
export function routingErrorHandler(
  ctx: HttpContext,
  code: 'NOT_FOUND' | 'METHOD_NOT_ALLOWED',
  allow: string | null,
): (res: HttpResponse, req: HttpRequest) => void {
  const status = code === 'NOT_FOUND' ? 404 : 405;
  const routeName = code === 'NOT_FOUND' ? 'not_found' : 'method_not_allowed';
  const message = code === 'NOT_FOUND' ? 'No such endpoint.' : `Method not allowed on this endpoint; use ${allow}.`;
  const rendered = renderError(makeError(code, message), fallbackContract(ctx.config.contract), null, 0, status);
  const answer: SimpleAnswer = { status, contentType: JSON_TYPE, body: rendered.body, headers: allow === null ? null : [['Allow', allow]] };
  return (res, req) => answerAtOnce(ctx, routeName, res, req, answer, code);
}

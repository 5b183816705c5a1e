// POST /v1/chat/completions, the OpenAI-compatible gateway (docs/gateway.md). Everything read from
// `req` is read here, synchronously, before the handler returns (uWS invalidates it after).
import { makeError } from '../contracts/error-codes.js';
import type { Config } from '../config/load-config.js';
import type { HttpContext } from '../http/http-context.js';
import type { HttpRequest, HttpResponse } from '../http/load-uws.js';
import { requestIdFor } from '../http/request-id.js';
import { JSON_TYPE, writeAnswer } from '../http/response-writer.js';
import type { RouteEntry } from '../http/router.js';
import { contentLengthOf } from '../http/body-request.js';
import { observeNonRepair } from '../http/simple-answer.js';
import { ChatCompletionsRequest, ROUTE } from './chat-completions-request.js';
import { minConfidenceOf } from './heal-report.js';
import { openAiError } from './openai-error.js';
import { UpstreamClient } from './upstream-client.js';

export { ROUTE as GATEWAY_ROUTE } from './chat-completions-request.js';

/** The gateway's upstream connection pool, or null when UPSTREAM_URL is unset. */
export function upstreamFor(config: Config): UpstreamClient | null {
  return config.upstreamUrl === undefined ? null : new UpstreamClient({ ...config, upstreamUrl: config.upstreamUrl });
}

export function gatewayRoutes(ctx: HttpContext, upstream: UpstreamClient | null): RouteEntry[] {
  const notConfigured = openAiError(makeError('UPSTREAM_NOT_CONFIGURED'));
  const fromCaller = ctx.config.upstreamKeyFromCaller;
  const handler = (res: HttpResponse, req: HttpRequest): void => {
    const requestId = requestIdFor(req.getHeader('x-request-id'));
    if (upstream === null) {
      // Answered before the body is read; uWS discards whatever of it still arrives.
      writeAnswer(res, notConfigured.status, JSON_TYPE, notConfigured.body, requestId, null, ctx.lifecycle.draining);
      observeNonRepair(ctx, ROUTE, requestId, null, Date.now(), performance.now(), notConfigured.status, notConfigured.errorCode);
      return;
    }
    const callerKey = fromCaller ? req.getHeader('x-upstream-authorization') : '';
    new ChatCompletionsRequest(res, ctx, upstream, {
      requestId,
      contentLength: contentLengthOf(req.getHeader('content-length')),
      authorization: req.getHeader('authorization'),
      minConfidence: minConfidenceOf(req.getHeader('x-jsonmend-min-confidence')),
      callerAuthorization: callerKey === '' ? null : callerKey,
    }).start();
  };
  return [{ method: 'post', path: '/v1/chat/completions', name: ROUTE, handler }];
}

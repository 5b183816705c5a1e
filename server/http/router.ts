// Mounts a route table on the uWS app: each (method, path) handler, then a 405 for other methods
// on a known path (with Allow), then a JSON 404 for everything else. Adding an endpoint (for
// example the streaming routes) is one more entry in the table. Every GET route answers HEAD too.
// Every handler, 404 and 405 included, first refuses ambiguous request framing (request-framing.ts).
import type { HttpRequest, HttpResponse, TemplatedApp } from './load-uws.js';
import type { HttpContext } from './http-context.js';
import { answeringHead, bodilessForHead } from './head-request.js';
import { withFramingCheck } from './request-framing.js';
import { routingErrorHandler } from './simple-answer.js';

export type Method = 'get' | 'post';

type Handler = (res: HttpResponse, req: HttpRequest) => void;

export interface RouteEntry {
  method: Method;
  path: string;
  /** Labels metrics and logs; keep it a fixed word. */
  name: string;
  handler: Handler;
}

/**
 * `native` is false only on uWS's pure-JS fallback. That one runs on Node's HTTP server, which
 * refuses ambiguous framing and drops the body of an answer to HEAD by itself, and it has neither
 * req.forEach nor res.endWithoutBody: there the handlers are mounted as they are.
 */
export function mountRoutes(app: TemplatedApp, ctx: HttpContext, routes: readonly RouteEntry[], native = true): void {
  const same = (handler: Handler): Handler => handler;
  const framed = native ? (handler: Handler): Handler => withFramingCheck(ctx, handler) : same;
  const forHead = native ? answeringHead : same;
  const bodiless = native ? bodilessForHead : same;
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    app[route.method](route.path, framed(route.handler));
    const methods = methodsByPath.get(route.path) ?? [];
    methods.push(route.method.toUpperCase());
    // HEAD wherever GET is served: the same answer without its body (head-request.ts).
    if (route.method === 'get') {
      app.head(route.path, framed(forHead(route.handler)));
      methods.push('HEAD');
    }
    methodsByPath.set(route.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    app.any(path, framed(bodiless(routingErrorHandler(ctx, 'METHOD_NOT_ALLOWED', methods.join(', ')))));
  }
  app.any('/*', framed(bodiless(routingErrorHandler(ctx, 'NOT_FOUND', null))));
}

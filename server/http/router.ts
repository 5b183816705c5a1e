// Mounts a route table on the uWS app: each (method, path) handler, then a 405 for other methods
// on a known path (with Allow), then a JSON 404 for everything else. Adding an endpoint (for
// example the streaming routes) is one more entry in the table. Every GET route answers HEAD too.
// Every handler, 404 and 405 included, first refuses ambiguous request framing (request-framing.ts).
import type { HttpRequest, HttpResponse, TemplatedApp } from '../uws/load-uws.js';
import type { HttpContext } from './http-context.js';
import { answeringHead, bodilessForHead } from './head-request.js';
import { withFramingCheck } from './request-framing.js';
import { routingErrorHandler } from './simple-answer.js';

export type Method = 'get' | 'post';

export interface RouteEntry {
  method: Method;
  path: string;
  /** Labels metrics and logs; keep it a fixed word. */
  name: string;
  handler: (res: HttpResponse, req: HttpRequest) => void;
}

export function mountRoutes(app: TemplatedApp, ctx: HttpContext, routes: readonly RouteEntry[]): void {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    app[route.method](route.path, withFramingCheck(ctx, route.handler));
    const methods = methodsByPath.get(route.path) ?? [];
    methods.push(route.method.toUpperCase());
    // HEAD wherever GET is served: the same answer without its body (head-request.ts).
    if (route.method === 'get') {
      app.head(route.path, withFramingCheck(ctx, answeringHead(route.handler)));
      methods.push('HEAD');
    }
    methodsByPath.set(route.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    app.any(path, withFramingCheck(ctx, bodilessForHead(routingErrorHandler(ctx, 'METHOD_NOT_ALLOWED', methods.join(', ')))));
  }
  app.any('/*', withFramingCheck(ctx, bodilessForHead(routingErrorHandler(ctx, 'NOT_FOUND', null))));
}

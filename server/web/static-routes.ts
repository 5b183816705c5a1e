// GET handlers for the pages, their assets and /openapi.json, answered from memory (static-assets.ts):
// 304 when If-None-Match names the current ETag, gzip when the client accepts it.
import type { HttpContext } from '../http/http-context.js';
import { requestIdFor } from '../http/request-id.js';
import type { RouteEntry } from '../http/router.js';
import { routingErrorHandler } from '../http/simple-answer.js';
import type { HttpRequest, HttpResponse } from '../http/load-uws.js';
import type { StaticFile, StaticSite } from './static-assets.js';
import { observeWeb, writeWebAnswer } from './web-answer.js';

const GZIP = /\bgzip\b/i;

/** True when an If-None-Match value lists `etag` (weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === '') return false;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

export function serveFile(ctx: HttpContext, route: string, file: StaticFile, res: HttpResponse, req: HttpRequest): void {
  const time = Date.now();
  const start = performance.now();
  const requestId = requestIdFor(req.getHeader('x-request-id'));
  const draining = ctx.lifecycle.draining;
  let status = 200;
  if (matchesEtag(req.getHeader('if-none-match'), file.etag)) {
    status = 304;
    writeWebAnswer(res, 304, file.notModifiedHeaders, null, requestId, draining);
  } else if (file.gzip !== null && GZIP.test(req.getHeader('accept-encoding'))) {
    writeWebAnswer(res, 200, file.gzipHeaders, file.gzip, requestId, draining);
  } else {
    writeWebAnswer(res, 200, file.headers, file.body, requestId, draining);
  }
  observeWeb(ctx, route, requestId, time, start, status, 'ok');
}

/** One route per page path, one wildcard for this build's assets (others get the JSON 404). */
export function staticRoutes(ctx: HttpContext, site: StaticSite, openapi: StaticFile): RouteEntry[] {
  const routes: RouteEntry[] = [];
  for (const [path, file] of site.files) {
    if (path.startsWith('/assets/')) continue;
    routes.push({ method: 'get', path, name: 'web_page', handler: (res, req) => serveFile(ctx, 'web_page', file, res, req) });
  }
  const notFound = routingErrorHandler(ctx, 'NOT_FOUND', null);
  routes.push({
    method: 'get',
    path: '/assets/*',
    name: 'web_asset',
    handler: (res, req) => {
      const file = site.files.get(req.getUrl());
      if (file === undefined) notFound(res, req);
      else serveFile(ctx, 'web_asset', file, res, req);
    },
  });
  routes.push({ method: 'get', path: '/openapi.json', name: 'openapi', handler: (res, req) => serveFile(ctx, 'openapi', openapi, res, req) });
  return routes;
}

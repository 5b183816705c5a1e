// GET /health and GET /metrics, answered at once from in-memory state. With METRICS_TOKEN set,
// /metrics needs `Authorization: Bearer <METRICS_TOKEN>`, and /health shows the public its status
// only (what a load balancer needs), its details (version, backend, pool) to that bearer alone.
// Unset, both stay open as the operator interface has them (docs/operations.md).
import { makeError } from '../contracts/error-codes.js';
import { OperatorToken } from './operator-token.js';
import { fallbackContract } from '../contracts/contract.js';
import { renderError } from '../contracts/render.js';
import type { StoreStatus } from '../stores/store-health.js';
import type { HttpContext } from '../http/http-context.js';
import { JSON_TYPE, PROMETHEUS_TYPE } from '../http/response-writer.js';
import type { RouteEntry } from '../http/router.js';
import { answerAtOnce, type SimpleAnswer } from '../http/simple-answer.js';
import { metricFamily, type Metrics } from '../observe/metrics.js';
import type { RepairPool } from '../batch/repair-pool.js';
import type { UwsBackend } from '../http/load-uws.js';
import { VERSION } from '../config/version.js';

const PUBLIC_OK = JSON.stringify({ status: 'ok' });
const PUBLIC_DRAINING = JSON.stringify({ status: 'draining' });

export function statusRoutes(ctx: HttpContext, pool: RepairPool, metrics: Metrics, backend: UwsBackend, stores?: StoreStatus): RouteEntry[] {
  const startedAt = Date.now();
  const token = new OperatorToken(ctx.config.metricsToken);
  // What /health shows only to the token's bearer stays visible to whoever may scrape /metrics.
  const buildInfo = `jsonmend_build_info{version="${VERSION}",uws="${backend}",contract="${ctx.config.contract}"} 1`;
  metrics.addSource(() => {
    const out: string[] = [];
    metricFamily(out, 'jsonmend_build_info', 'gauge', 'The running version, uWS backend and CONTRACT setting.');
    out.push(buildInfo);
    return out;
  });

  const details = (draining: boolean, down: readonly string[]): string => JSON.stringify({
    status: draining ? 'draining' : down.length > 0 ? 'degraded' : 'ok',
    ...(stores === undefined || stores.stores.length === 0 ? {} : { stores: stores.summary(), ...(down.length > 0 ? { degraded: down } : {}) }),
    version: VERSION,
    uws: backend,
    contract: ctx.config.contract,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    inflightRequests: ctx.lifecycle.inflight,
    pool: {
      workers: pool.workers,
      threads: pool.threads,
      activeTasks: pool.activeTasks,
      queueDepth: pool.queueDepth,
      queueMax: pool.queueMax,
    },
  });
  const health = (authorization: string): SimpleAnswer => {
    const draining = ctx.lifecycle.draining;
    // A shared store that does not answer leaves the node serving on local fallbacks: still 200
    // (a balancer keeps sending), but `degraded` names the store, for everyone (a store's name
    // tells nothing about the service); its details go to the token's bearer
    // (to everyone while METRICS_TOKEN is unset: the operator interface's /health).
    const down = stores?.down() ?? [];
    let body: string;
    if (!token.configured || token.presentedIn(authorization)) body = details(draining, down);
    else if (draining) body = PUBLIC_DRAINING;
    else body = down.length === 0 ? PUBLIC_OK : JSON.stringify({ status: 'degraded', degraded: down });
    // 503 while draining tells a load balancer to stop sending before the process exits.
    return { status: draining ? 503 : 200, contentType: JSON_TYPE, body, headers: null };
  };

  const refused = renderError(
    makeError('INVALID_API_KEY', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', { suggestion: 'Send the token set in METRICS_TOKEN on the server.' }),
    fallbackContract(ctx.config.contract), null, 0, 401,
  );
  const unauthorized: SimpleAnswer = {
    status: 401, contentType: JSON_TYPE, body: refused.body, headers: [['WWW-Authenticate', 'Bearer realm="jsonmend metrics"']],
  };
  return [
    {
      method: 'get', path: '/health', name: 'health',
      handler: (res, req) => answerAtOnce(ctx, 'health', res, req, health(req.getHeader('authorization')), 'ok'),
    },
    {
      method: 'get', path: '/metrics', name: 'metrics',
      handler: (res, req) => {
        if (token.configured && !token.presentedIn(req.getHeader('authorization'))) {
          answerAtOnce(ctx, 'metrics', res, req, unauthorized, 'INVALID_API_KEY');
        } else {
          answerAtOnce(ctx, 'metrics', res, req, { status: 200, contentType: PROMETHEUS_TYPE, body: metrics.render(), headers: null }, 'ok');
        }
      },
    },
  ];
}

// GET /health and GET /metrics: unauthenticated, answered at once from in-memory state.
import type { StoreStatus } from '../cluster/store-health.js';
import type { HttpContext } from '../http/http-context.js';
import { JSON_TYPE, PROMETHEUS_TYPE } from '../http/response-writer.js';
import type { RouteEntry } from '../http/router.js';
import { getHandler, type SimpleAnswer } from '../http/simple-answer.js';
import type { Metrics } from '../observe/metrics.js';
import type { RepairPool } from '../pool/repair-pool.js';
import type { UwsBackend } from '../uws/load-uws.js';
import { VERSION } from '../version.js';

export function statusRoutes(ctx: HttpContext, pool: RepairPool, metrics: Metrics, backend: UwsBackend, stores?: StoreStatus): RouteEntry[] {
  const startedAt = Date.now();
  const health = (): SimpleAnswer => {
    const draining = ctx.lifecycle.draining;
    // A shared store that does not answer leaves the node serving on local fallbacks: still 200
    // (a balancer keeps sending), but `degraded` names the store for the operator.
    const down = stores?.down() ?? [];
    const body = JSON.stringify({
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
    // 503 while draining tells a load balancer to stop sending before the process exits.
    return { status: draining ? 503 : 200, contentType: JSON_TYPE, body, headers: null };
  };
  const scrape = (): SimpleAnswer => ({ status: 200, contentType: PROMETHEUS_TYPE, body: metrics.render(), headers: null });
  return [
    { method: 'get', path: '/health', name: 'health', handler: getHandler(ctx, 'health', health) },
    { method: 'get', path: '/metrics', name: 'metrics', handler: getHandler(ctx, 'metrics', scrape) },
  ];
}

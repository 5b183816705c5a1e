// Assembles the service: uWS app, repair pool, key store, admission hook, observers, routes.
// The accounts and streaming layers plug in through ServerParts, without touching the pipeline.
import { warmUpSchemaCompiler } from '../engine/schema/index.js';
import { MemoryKeyStore, type KeyStore } from './accounts/key-store.js';
import type { Redis } from 'ioredis';
import { ClusterNode } from './streaming/forwarding/cluster-node.js';
import type { StoreStatus } from './stores/store-health.js';
import type { Config } from './config/load-config.js';
import { ADMIT_ALL, type AdmissionHook } from './http/admission-hook.js';
import { ClientIpResolver } from './http/client-ip.js';
import type { HttpContext } from './http/http-context.js';
import { jsonPostHandler } from './http/json-post.js';
import { Lifecycle } from './http/lifecycle.js';
import { listen } from './http/listen.js';
import { BAD_FRAMING_ROUTE } from './http/request-framing.js';
import { mountRoutes, type RouteEntry } from './http/router.js';
import { Logger } from './observe/logger.js';
import { Metrics, metricSample } from './observe/metrics.js';
import type { RequestObserver } from './observe/request-record.js';
import { RepairPool } from './batch/repair-pool.js';
import { demoMessageFor, RepairRoute } from './batch/repair-route.js';
import { InlineSchemaGate } from './batch/inline-schema-gate.js';
import { statusRoutes } from './status/status-routes.js';
import { Streaming } from './streaming/streaming.js';
import type { RepairTaskSettings } from './batch/repair-task.js';
import { loadUws, type LoadedUws, type TemplatedApp, type us_listen_socket, type UwsBackend } from './http/load-uws.js';

export interface ServerParts {
  /** Default: an in-memory store seeded from API_KEYS. */
  keyStore?: KeyStore;
  /** Default: admit everything (no rate limits). */
  admission?: AdmissionHook;
  /** Told about every answered request after logs and metrics (usage counting, metadata log). */
  observers?: RequestObserver[];
  /** More endpoints (e.g. the streaming routes), mounted beside the built-in ones. */
  extraRoutes?: (ctx: HttpContext, pool: RepairPool) => RouteEntry[];
  /** More /metrics series (the accounts layer's); labels must be bounded. */
  metricSources?: ReadonlyArray<() => readonly string[]>;
  logger?: Logger;
  /** Share the port with other server processes on purpose (see http/listen.ts). Default: exclusive. */
  reusePort?: boolean;
  /** Shared stores' health (REDIS_URL, DATABASE_URL): /health's `degraded` and `stores`. */
  stores?: StoreStatus;
  /** The node's Redis client (REDIS_URL), shared with the cluster layer; default: its own. */
  redis?: Redis;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly backend: UwsBackend;
  readonly logger: Logger;
  /** Stops accepting, waits for requests in flight (bounded), then stops the pool. */
  shutdown(): Promise<{ drained: boolean }>;
}

/** What the steps below share: built once per server, closed by its shutdown. */
interface Services {
  pool: RepairPool;
  settings: RepairTaskSettings;
  metrics: Metrics;
  cluster: ClusterNode | null;
  streaming: Streaming;
}

interface Listening {
  socket: us_listen_socket;
  /** The forwards' own port of a node started by PROCESSES; null otherwise. */
  peerSocket: us_listen_socket | null;
}

export async function startServer(config: Config, parts: ServerParts = {}): Promise<RunningServer> {
  const { uws, backend } = loadUws(config.uwsAllowFallback);
  const logger = parts.logger ?? new Logger(config.logLevel);
  const lifecycle = new Lifecycle();
  const services = createServices(config, parts, logger, lifecycle);
  const ctx = createContext(config, parts, services.metrics, lifecycle, logger);
  const app = uws.App();
  mountAll(app, ctx, backend, services, parts);
  const listening = await listenAll(uws, app, config, parts, services);
  const port = uws.us_socket_local_port(listening.socket);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  if (services.cluster !== null) await services.cluster.start(peerUrlOf(uws, config, host, port, listening));
  const shutdown = makeShutdown(uws, config, lifecycle, logger, services, listening);
  return { url: `http://${host}:${port}`, port, backend, logger, shutdown };
}

/** The repair pool, metrics, and the streaming and cluster layers, with their /metrics sources. */
function createServices(config: Config, parts: ServerParts, logger: Logger, lifecycle: Lifecycle): Services {
  const { pool, settings } = createPool(config, logger);
  const metrics = new Metrics(() => ({
    workers: pool.workers,
    threads: pool.threads,
    queueDepth: pool.queueDepth,
    activeTasks: pool.activeTasks,
    inflightRequests: lifecycle.inflight,
  }));
  // With REDIS_URL this node is one of several: sessions held elsewhere are forwarded to their owner.
  const cluster = config.redisUrl === undefined ? null : new ClusterNode(config, logger, parts.redis);
  // Streaming sessions run in their own worker threads (docs/streaming.md "Pinning").
  const streaming = new Streaming(config, logger, cluster?.forwarder ?? null);
  if (cluster !== null) metrics.addSource(() => cluster.metricLines());
  metrics.addSource(() => streaming.metricLines());
  for (const source of parts.metricSources ?? []) metrics.addSource(source);
  metrics.addSource(() => {
    const out: string[] = [];
    metricSample(out, 'jsonmend_pool_tasks_cancelled_total', 'counter', 'Queued repairs dropped before they ran because their client went away.', pool.cancelledTasks);
    return out;
  });
  return { pool, settings, metrics, cluster, streaming };
}

/** The batch repair pool and the settings each of its workers receives once. */
function createPool(config: Config, logger: Logger): { pool: RepairPool; settings: RepairTaskSettings } {
  const settings: RepairTaskSettings = {
    contract: config.contract,
    maxPayloadBytes: config.maxPayloadBytes,
    demoMessage: demoMessageFor(config.demoLimitPerHour),
  };
  const pool = new RepairPool({
    workers: config.workers,
    queueMax: config.queueMax,
    taskTimeoutMs: config.taskTimeoutMs,
    settings,
    testHooks: config.testHooks,
    onPoolError: (error) => logger.log('error', 'worker pool error', { error: (error as Error)?.message ?? String(error) }),
  });
  return { pool, settings };
}

/** What every route handler reads: keys, admission, client IPs, observers, in-flight tracking. */
function createContext(config: Config, parts: ServerParts, metrics: Metrics, lifecycle: Lifecycle, logger: Logger): HttpContext {
  return {
    config,
    keyStore: parts.keyStore ?? new MemoryKeyStore(config.apiKeys),
    admission: parts.admission ?? ADMIT_ALL,
    clientIp: new ClientIpResolver(config.trustProxy),
    observers: [metrics, logger, ...(parts.observers ?? [])],
    lifecycle,
    logger,
  };
}

/** Every endpoint on the app, each route name known to /metrics from the start. */
function mountAll(app: TemplatedApp, ctx: HttpContext, backend: UwsBackend, services: Services, parts: ServerParts): void {
  const { pool, settings, metrics, cluster, streaming } = services;
  // One gate: both routes see the same HTTP-thread schema cache. Warmed before listening, so the
  // first schema this thread compiles (a cheap one, see the gate) stalls no request for ~80 ms.
  warmUpSchemaCompiler();
  const schemaGate = new InlineSchemaGate();
  const repair = new RepairRoute('repair', ctx, pool, settings, schemaGate);
  const demo = new RepairRoute('demo', ctx, pool, settings, schemaGate);
  const routes: RouteEntry[] = [
    { method: 'post', path: '/v1/repair', name: repair.name, handler: jsonPostHandler(repair, ctx) },
    { method: 'post', path: '/v1/demo/repair', name: demo.name, handler: jsonPostHandler(demo, ctx) },
    ...statusRoutes(ctx, pool, metrics, backend, parts.stores),
    ...streaming.routes(ctx),
    ...(cluster?.routes(ctx, streaming.sessions) ?? []),
    ...(parts.extraRoutes?.(ctx, pool) ?? []),
  ];
  for (const name of [...routes.map((r) => r.name), 'not_found', 'method_not_allowed', BAD_FRAMING_ROUTE]) metrics.addRoute(name);
  mountRoutes(app, ctx, routes, backend === 'native');
}

/**
 * Opens the public port, and for a node started by PROCESSES a port of its own for forwards: it
 * shares the public port with its siblings (SO_REUSEPORT), which cannot address one process. When
 * listening fails, what was started is closed before the error goes up.
 */
async function listenAll(uws: LoadedUws['uws'], app: TemplatedApp, config: Config, parts: ServerParts, services: Services): Promise<Listening> {
  const { pool, cluster, streaming } = services;
  const shared = config.processIndex !== undefined;
  try {
    const socket = await listen(app, { host: config.host, port: config.port, reusePort: shared || parts.reusePort });
    if (cluster === null || !shared) return { socket, peerSocket: null };
    const peer = config.peerUrl === undefined ? { host: '127.0.0.1', port: 0 } : { host: config.host, port: Number(new URL(config.peerUrl).port || 80) };
    try {
      return { socket, peerSocket: await listen(app, peer) };
    } catch (error) {
      uws.us_listen_socket_close(socket);
      throw error;
    }
  } catch (error) {
    await pool.close();
    await streaming.close();
    await cluster?.close();
    throw error;
  }
}

/** The address other nodes forward this node's sessions to. */
function peerUrlOf(uws: LoadedUws['uws'], config: Config, host: string, port: number, listening: Listening): string {
  const loopback = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : host;
  return config.peerUrl ?? `http://${loopback}:${listening.peerSocket === null ? port : uws.us_socket_local_port(listening.peerSocket)}`;
}

/** Stops accepting, waits for requests in flight (bounded by the task deadline), then closes. */
function makeShutdown(uws: LoadedUws['uws'], config: Config, lifecycle: Lifecycle, logger: Logger, services: Services, listening: Listening): () => Promise<{ drained: boolean }> {
  const { pool, cluster, streaming } = services;
  let stopping: Promise<{ drained: boolean }> | null = null;
  return () => {
    stopping ??= (async () => {
      uws.us_listen_socket_close(listening.socket);
      if (listening.peerSocket !== null) uws.us_listen_socket_close(listening.peerSocket);
      // In-flight work is bounded by the task deadline; give it that long plus a margin.
      const limit = config.taskTimeoutMs + 5_000;
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        lifecycle.drain().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(resolve, limit, false);
        }),
      ]);
      clearTimeout(timer);
      await pool.close();
      await streaming.close();
      await cluster?.close();
      logger.flush();
      return { drained };
    })();
    return stopping;
  };
}

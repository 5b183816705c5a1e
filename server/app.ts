// Assembles the service, the one place every layer meets: the shared stores and the accounts on
// them (startService), then the uWS app, repair pool, streaming, forwarding between nodes, status
// and web routes (startServer). The accounts layer plugs in through ServerParts (key store,
// admission, observers, routes), so the HTTP pipeline knows no feature.
import { warmUpSchemaCompiler } from '../engine/schema/index.js';
import { Accounts } from './accounts/index.js';
import { keyAuthentication } from './accounts/authenticate.js';
import { RequestAdmission } from './accounts/request-admission.js';
import { RequestRecorder } from './accounts/request-recorder.js';
import { openSharedStores } from './accounts/shared-stores.js';
import { usageRoutes } from './accounts/usage-route.js';
import { MemoryKeyStore, type KeyStore } from './accounts/key-store.js';
import type { Redis } from 'ioredis';
import { ClusterNode } from './streaming/forwarding/cluster-node.js';
import type { StoreStatus } from './stores/store-health.js';
import { engineBudgetMs, type Config } from './config/load-config.js';
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
import { PoolSchemaCompiler, streamSchemaCompileMs } from './batch/pool-schema-compiler.js';
import { demoMessageFor, RepairRoute } from './batch/repair-route.js';
import { InlineSchemaGate } from './batch/inline-schema-gate.js';
import { statusRoutes } from './status/status-routes.js';
import { gatewayRoutes, upstreamFor } from './gateway/gateway-routes.js';
import type { UpstreamClient } from './gateway/upstream-client.js';
import { Streaming } from './streaming/streaming.js';
import { sharedConsole, webRoutes } from './web/web-routes.js';
import type { RepairTaskSettings } from './batch/repair-task.js';
import { loadUws, type LoadedUws, type TemplatedApp, type us_listen_socket, type UwsBackend, type UwsIdentity } from './http/load-uws.js';

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
  /** The node's Redis client (REDIS_URL), shared with streaming/forwarding/; default: its own. */
  redis?: Redis;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly backend: UwsBackend;
  /** The package uWS was loaded from (the official uWebSockets.js when installed). */
  readonly uwsPackage: string;
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
  /** The gateway's upstream pool (UPSTREAM_URL), or null. */
  upstream: UpstreamClient | null;
}

interface Listening {
  socket: us_listen_socket;
  /** The forwards' own port of a node started by PROCESSES; null otherwise. */
  peerSocket: us_listen_socket | null;
}

export interface RunningService {
  readonly server: RunningServer;
  /** Stops the server, then writes the buffered usage and metadata and closes the stores. */
  shutdown(): Promise<{ drained: boolean }>;
}

/**
 * The whole service as `npm start` runs it: where records live (PostgreSQL with DATABASE_URL, else
 * SQLite in DATA_DIR), with REDIS_URL the limits and sessions shared with other nodes (docs/scaling.md
 * "What each store holds"), the accounts on them, and the server with every route. Rejects with the
 * message the operator is shown when a store or the port cannot be opened.
 */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  // A store that is down fails every reconnect attempt: one log line per store per 10 s is enough.
  const lastStoreError = new Map<string, number>();
  const stores = await openSharedStores(config, {
    onError: (store, error) => {
      const now = performance.now();
      if (now - (lastStoreError.get(store) ?? -Infinity) < 10_000) return;
      lastStoreError.set(store, now);
      logger.log('warn', `${store} connection error`, { error: error.message });
    },
    onChange: (store, up, error) => logger.log(up ? 'info' : 'error', up ? `${store} is back` : `${store} is down: serving on local fallbacks`,
      up ? {} : { error: (error as Error)?.message ?? String(error) }),
  }).catch((error: unknown) => {
    throw new Error(`cannot open the accounts database at DATABASE_URL: ${(error as Error).message}`);
  });
  // Accounts: keys, limits and quotas served from memory; storage written in the background.
  const accounts = await Accounts.open({
    dataDir: config.dataDir,
    apiKeys: config.apiKeys,
    demoLimitPerHour: config.demoLimitPerHour,
    ...(stores.storage === undefined ? {} : { storage: stores.storage }),
    ...(stores.limiter === undefined ? {} : { limiter: stores.limiter }),
    ...(stores.demo === undefined ? {} : { demo: stores.demo }),
    onError: (error) => logger.log('error', 'accounts background task failed', { error: (error as Error)?.message ?? String(error) }),
  }).catch((error: unknown) => {
    throw new Error(stores.storage === undefined
      ? `cannot open the accounts database in DATA_DIR (${config.dataDir}): ${(error as Error).message}`
      : `cannot open the accounts database at DATABASE_URL: ${(error as Error).message}`);
  });
  accounts.start();
  if (accounts.seeded.length > 0) {
    logger.log('info', 'API_KEYS seeded', { keys: accounts.seeded.map((s) => `${s.prefix}…:${s.outcome}`).join(', ') });
  }
  const server = await startServer(config, {
    logger,
    keyStore: accounts.keys,
    admission: new RequestAdmission({ keyed: accounts.admission, demo: accounts.demo }),
    observers: [new RequestRecorder({ quota: accounts.quota, metadata: accounts.metadata })],
    stores: stores.status,
    ...(stores.redis === undefined ? {} : { redis: stores.redis }),
    extraRoutes: (ctx) => [...usageRoutes(ctx, accounts), ...webRoutes(ctx, {
      accounts,
      // With REDIS_URL a browser signed in through one node is signed in on all (loadConfig requires CLUSTER_SECRET).
      ...(stores.redis === undefined ? {} : { shared: sharedConsole(stores.redis, stores.redisHealth!, config.clusterSecret!) }),
    })],
    metricSources: [() => accounts.metricLines(), () => stores.status.metricLines()],
  });
  return {
    server,
    async shutdown() {
      const { drained } = await server.shutdown();
      // Every answered request has been observed: write the buffered usage and metadata, then close.
      await accounts.close().catch((error: unknown) => logger.log('error', 'accounts flush failed', { error: (error as Error)?.message }));
      await stores.close();
      return { drained };
    },
  };
}

export async function startServer(config: Config, parts: ServerParts = {}): Promise<RunningServer> {
  const { uws, backend, packageName, skipped } = loadUws(config.uwsAllowFallback);
  const logger = parts.logger ?? new Logger(config.logLevel);
  // An installed package that could not be used (a binary built for another Node or glibc) is worth a line.
  for (const passed of skipped) if (passed.reason !== 'not installed') logger.log('warn', `${passed.packageName} is installed but not used`, { reason: passed.reason });
  const lifecycle = new Lifecycle();
  const services = createServices(config, parts, logger, lifecycle);
  const ctx = createContext(config, parts, services.metrics, lifecycle, logger);
  const app = uws.App();
  mountAll(app, ctx, { backend, packageName }, services, parts);
  const listening = await listenAll(uws, app, config, parts, services);
  const port = uws.us_socket_local_port(listening.socket);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  if (services.cluster !== null) await services.cluster.start(peerUrlOf(uws, config, host, port, listening));
  const shutdown = makeShutdown(uws, config, lifecycle, logger, services, listening);
  return { url: `http://${host}:${port}`, port, backend, uwsPackage: packageName, logger, shutdown };
}

/** The repair pool, metrics, streaming and its forwarding between nodes, with their /metrics sources. */
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
  // A start's schema compiles in the pool first, where overrunning costs only its caller.
  streaming.sessions.schemaCheck = new PoolSchemaCompiler(pool, streamSchemaCompileMs(config.taskTimeoutMs));
  if (cluster !== null) metrics.addSource(() => cluster.metricLines());
  metrics.addSource(() => streaming.metricLines());
  for (const source of parts.metricSources ?? []) metrics.addSource(source);
  metrics.addSource(() => {
    const out: string[] = [];
    metricSample(out, 'jsonmend_pool_tasks_cancelled_total', 'counter', 'Queued repairs dropped before they ran because their client went away.', pool.cancelledTasks);
    return out;
  });
  return { pool, settings, metrics, cluster, streaming, upstream: upstreamFor(config) };
}

/** The batch repair pool and the settings each of its workers receives once. */
function createPool(config: Config, logger: Logger): { pool: RepairPool; settings: RepairTaskSettings } {
  const settings: RepairTaskSettings = {
    contract: config.contract,
    maxPayloadBytes: config.maxPayloadBytes,
    demoMessage: demoMessageFor(config.demoLimitPerHour),
    engineBudgetMs: engineBudgetMs(config),
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
    authentication: keyAuthentication(parts.keyStore ?? new MemoryKeyStore(config.apiKeys)),
    admission: parts.admission ?? ADMIT_ALL,
    clientIp: new ClientIpResolver(config.trustProxy),
    observers: [metrics, logger, ...(parts.observers ?? [])],
    lifecycle,
    logger,
  };
}

/** Every endpoint on the app, each route name known to /metrics from the start. */
function mountAll(app: TemplatedApp, ctx: HttpContext, uws: UwsIdentity, services: Services, parts: ServerParts): void {
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
    ...statusRoutes(ctx, pool, metrics, uws, parts.stores),
    ...streaming.routes(ctx),
    ...gatewayRoutes(ctx, services.upstream),
    ...(cluster?.routes(ctx, streaming.sessions) ?? []),
    ...(parts.extraRoutes?.(ctx, pool) ?? []),
  ];
  for (const name of [...routes.map((r) => r.name), 'not_found', 'method_not_allowed', BAD_FRAMING_ROUTE]) metrics.addRoute(name);
  mountRoutes(app, ctx, routes, uws.backend === 'native');
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
      await services.upstream?.close();
      logger.flush();
      return { drained };
    })();
    return stopping;
  };
}

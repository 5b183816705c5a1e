// Entry point (`npm start`): configuration, the server, one "listening on" line, signal handling.
import { Accounts } from './accounts/index.js';
import { RequestAdmission } from './accounts/request-admission.js';
import { RequestRecorder } from './accounts/request-recorder.js';
import { startServer } from './app.js';
import { runPrimary, type ListeningMessage } from './process-primary.js';
import { openSharedStores } from './accounts/shared-stores.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { Logger } from './observe/logger.js';
import { usageRoutes } from './accounts/usage-route.js';
import { VERSION } from './config/version.js';
import { sharedConsole, webRoutes } from './web/web-routes.js';

// A closed stdout (EPIPE) must not kill the service; logs are best effort.
process.stdout.on('error', () => {});

function fatal(message: string): never {
  process.stderr.write(`jsonmend: ${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fatal(error.message);
  throw error;
}

// PROCESSES=N: this process only supervises N nodes, each this same program (docs/scaling.md).
if (config.processes > 1 && config.processIndex === undefined) await runPrimary(config, process.env, fatal);

const logger = new Logger(config.logLevel);
// Where records live (PostgreSQL with DATABASE_URL, else SQLite in DATA_DIR) and, with REDIS_URL,
// the limits shared with other nodes (docs/scaling.md "What each store holds").
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
}).catch((error: unknown) => fatal(`cannot open the accounts database at DATABASE_URL: ${(error as Error).message}`));
// Accounts: keys, limits and quotas served from memory; storage written in the background.
const accounts = await Accounts.open({
  dataDir: config.dataDir,
  apiKeys: config.apiKeys,
  demoLimitPerHour: config.demoLimitPerHour,
  ...(stores.storage === undefined ? {} : { storage: stores.storage }),
  ...(stores.limiter === undefined ? {} : { limiter: stores.limiter }),
  ...(stores.demo === undefined ? {} : { demo: stores.demo }),
  onError: (error) => logger.log('error', 'accounts background task failed', { error: (error as Error)?.message ?? String(error) }),
}).catch((error: unknown) => fatal(stores.storage === undefined
  ? `cannot open the accounts database in DATA_DIR (${config.dataDir}): ${(error as Error).message}`
  : `cannot open the accounts database at DATABASE_URL: ${(error as Error).message}`));
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
}).catch((error: unknown) => fatal((error as Error).message));

// A node of PROCESSES tells its primary, which prints the one "listening on" line for all of them.
const primary = config.processIndex === undefined ? undefined : process.send?.bind(process);
primary?.({ listening: server.url } satisfies ListeningMessage);
process.stdout.write(JSON.stringify({
  time: Date.now(),
  level: 'info',
  msg: primary === undefined ? `listening on ${server.url}` : `node ${config.nodeId} listening`,
  node: config.redisUrl === undefined ? undefined : config.nodeId,
  version: VERSION,
  uws: server.backend,
  workers: config.workers,
  contract: config.contract,
}) + '\n');

if (config.metricsToken === null) {
  server.logger.log('info', 'METRICS_TOKEN is not set: GET /metrics and the details of /health are open to anyone who can reach the port');
}

let signalled = false;
const stop = (signal: NodeJS.Signals): void => {
  if (signalled) return;
  signalled = true;
  server.logger.log('info', 'shutting down', { signal });
  server.shutdown().then(async ({ drained }) => {
    // Every answered request has been observed: write the buffered usage and metadata, then close.
    await accounts.close().catch((error: unknown) => server.logger.log('error', 'accounts flush failed', { error: (error as Error)?.message }));
    await stores.close();
    server.logger.log(drained ? 'info' : 'warn', drained ? 'stopped' : 'stopped with requests still in flight');
    server.logger.flush();
    process.exit(drained ? 0 : 1);
  }, (error: unknown) => {
    server.logger.log('error', 'shutdown failed', { error: (error as Error)?.message });
    server.logger.flush();
    process.exit(1);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The primary gone (killed): a node does not outlive it.
if (primary !== undefined) process.on('disconnect', () => stop('SIGTERM'));

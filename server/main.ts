// Entry point (`npm start`): configuration, the server, one "listening on" line, signal handling.
import { Accounts } from './accounts/index.js';
import { RequestAdmission } from './accounts/request-admission.js';
import { RequestRecorder } from './accounts/request-recorder.js';
import { startServer } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { Logger } from './observe/logger.js';
import { usageRoutes } from './routes/usage-route.js';
import { VERSION } from './version.js';
import { webRoutes } from './web/web-routes.js';

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

const logger = new Logger(config.logLevel);
// Accounts: keys, limits and quotas served from memory; SQLite in DATA_DIR written in the background.
const accounts = await Accounts.open({
  dataDir: config.dataDir,
  apiKeys: config.apiKeys,
  demoLimitPerHour: config.demoLimitPerHour,
  onError: (error) => logger.log('error', 'accounts background task failed', { error: (error as Error)?.message ?? String(error) }),
}).catch((error: unknown) => fatal(`cannot open the accounts database in DATA_DIR (${config.dataDir}): ${(error as Error).message}`));
accounts.start();
if (accounts.seeded.length > 0) {
  logger.log('info', 'API_KEYS seeded', { keys: accounts.seeded.map((s) => `${s.prefix}…:${s.outcome}`).join(', ') });
}

const server = await startServer(config, {
  logger,
  keyStore: accounts.keys,
  admission: new RequestAdmission({ keyed: accounts.admission, demo: accounts.demo }),
  observers: [new RequestRecorder({ quota: accounts.quota, metadata: accounts.metadata })],
  extraRoutes: (ctx) => [...usageRoutes(ctx, accounts), ...webRoutes(ctx, { accounts })],
}).catch((error: unknown) => fatal((error as Error).message));

process.stdout.write(JSON.stringify({
  time: Date.now(),
  level: 'info',
  msg: `listening on ${server.url}`,
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

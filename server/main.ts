// Entry point (`npm start`): configuration, the PROCESSES primary, the service (app.ts), one
// "listening on" line, signal handling.
import { startService } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { VERSION } from './config/version.js';
import { Logger } from './observe/logger.js';
import { runPrimary, type ListeningMessage } from './process-primary.js';

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
const service = await startService(config, logger).catch((error: unknown) => fatal((error as Error).message));
const { server } = service;

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
  service.shutdown().then(({ drained }) => {
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

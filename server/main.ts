// Entry point (`npm start`): configuration, the server, one "listening on" line, signal handling.
import { startServer } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { VERSION } from './version.js';

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

const server = await startServer(config).catch((error: unknown) => fatal((error as Error).message));

process.stdout.write(JSON.stringify({
  time: Date.now(),
  level: 'info',
  msg: `listening on ${server.url}`,
  version: VERSION,
  uws: server.backend,
  workers: config.workers,
  contract: config.contract,
}) + '\n');

let signalled = false;
const stop = (signal: NodeJS.Signals): void => {
  if (signalled) return;
  signalled = true;
  server.logger.log('info', 'shutting down', { signal });
  server.shutdown().then(({ drained }) => {
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

// The baseline of `bench/accounts/http.ts`: the server as it was before the accounts layer was
// wired in — keys from API_KEYS in memory (MemoryKeyStore), no limits, no usage counting, no
// metadata log, no database. Same configuration, same routes, same pool; only ServerParts differ.
import { startServer } from '../../server/app.js';
import { loadConfig } from '../../server/config/load-config.js';

const server = await startServer(loadConfig());
process.stdout.write(`${JSON.stringify({ time: Date.now(), level: 'info', msg: `listening on ${server.url}` })}\n`);
const stop = (): void => {
  server.shutdown().then(({ drained }) => process.exit(drained ? 0 : 1), () => process.exit(1));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

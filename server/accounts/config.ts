// The accounts layer's environment variables, read and validated once at start-up (DESIGN.md
// "Running it"). A bad value stops the server with a message naming the variable.
import { parseApiKeys, type SeedKey } from './api-key.js';
import { parseTrustProxy, type ProxyTrust } from './client-ip.js';

export interface AccountsConfig {
  /** DATA_DIR: where jsonmend.sqlite lives (default ./data). */
  dataDir: string;
  /** API_KEYS: `key:tier,...` seeded at start. */
  apiKeys: SeedKey[];
  /** DEMO_LIMIT_PER_HOUR (default 10). */
  demoLimitPerHour: number;
  /** TRUST_PROXY: proxies whose X-Forwarded-For is believed (default none). */
  trustProxy: ProxyTrust;
}

export function readAccountsConfig(env: NodeJS.ProcessEnv = process.env): AccountsConfig {
  const demo = env['DEMO_LIMIT_PER_HOUR'];
  const demoLimitPerHour = demo === undefined || demo.trim() === '' ? 10 : Number(demo);
  if (!Number.isInteger(demoLimitPerHour) || demoLimitPerHour < 0) {
    throw new Error(`DEMO_LIMIT_PER_HOUR must be a whole number >= 0, got "${demo}"`);
  }
  const dataDir = env['DATA_DIR'];
  return {
    dataDir: dataDir === undefined || dataDir.trim() === '' ? './data' : dataDir,
    apiKeys: parseApiKeys(env['API_KEYS']),
    demoLimitPerHour,
    trustProxy: parseTrustProxy(env['TRUST_PROXY']),
  };
}

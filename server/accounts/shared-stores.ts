// The stores a node shares with the others, opened once at start from the configuration:
// the accounts storage (PostgreSQL with DATABASE_URL, else SQLite; open-storage.ts), a Redis client
// with REDIS_URL, a StoreHealth for each shared one, and the Redis-backed limiters. Without
// REDIS_URL and DATABASE_URL this is the embedded default: SQLite and in-process limiters, no probes.
import type { Redis } from 'ioredis';
import { systemClock, type Clock } from './clock.js';
import type { DemoRateLimiter } from './demo-limiter.js';
import { openStorage } from './storage/open-storage.js';
import type { AccountsStorage } from './storage/accounts-storage.js';
import type { PostgresStorage } from './storage/postgres-storage.js';
import type { KeyRateLimiter } from './rate-limiter.js';
import type { Config } from '../config/load-config.js';
import { connectRedis, redisReady } from '../stores/redis-connection.js';
import { SharedDemoLimiter } from './shared-demo-limiter.js';
import { SharedRateLimiter } from './shared-rate-limiter.js';
import { StoreHealth, StoreStatus } from '../stores/store-health.js';

export interface SharedStores {
  /** PostgreSQL with DATABASE_URL; undefined = the accounts layer opens its SQLite file itself (with its writer thread). */
  readonly storage: AccountsStorage | undefined;
  readonly redis: Redis | undefined;
  readonly redisHealth: StoreHealth | undefined;
  readonly status: StoreStatus;
  /** Set with REDIS_URL; otherwise the accounts layer builds its in-process limiters. */
  readonly limiter: KeyRateLimiter | undefined;
  readonly demo: DemoRateLimiter | undefined;
  close(): Promise<void>;
}

export interface SharedStoresOptions {
  onError: (store: string, error: Error) => void;
  /** Store went down or came back (a log line). */
  onChange?: (store: string, up: boolean, error: unknown) => void;
  clock?: Clock;
  /** How long start-up waits for Redis before starting degraded (default 3 s). */
  redisStartMs?: number;
}

type Settings = Pick<Config, 'dataDir' | 'databaseUrl' | 'redisUrl' | 'nodeId' | 'demoLimitPerHour'>;

export async function openSharedStores(config: Settings, options: SharedStoresOptions): Promise<SharedStores> {
  const clock = options.clock ?? systemClock;
  const onChange = options.onChange ?? (() => {});
  const stores: StoreHealth[] = [];
  let storage: AccountsStorage | undefined;
  if (config.databaseUrl !== undefined) {
    const opened = await openStorage(config, { onError: (error) => options.onError('postgres', error), name: `jsonmend:${config.nodeId}` });
    storage = opened.storage;
    const pool = (opened.storage as PostgresStorage).pool;
    stores.push(new StoreHealth('postgres', () => pool.query('SELECT 1'), { intervalMs: 1_000, onChange: (up, e) => onChange('postgres', up, e) }));
  }
  let redis: Redis | undefined;
  let redisHealth: StoreHealth | undefined;
  let limiter: KeyRateLimiter | undefined;
  let demo: DemoRateLimiter | undefined;
  if (config.redisUrl !== undefined) {
    const client = connectRedis(config.redisUrl, (error) => options.onError('redis', error), { connectionName: `jsonmend:${config.nodeId}` });
    redis = client;
    redisHealth = new StoreHealth('redis', () => client.ping(), { onChange: (up, e) => onChange('redis', up, e) });
    stores.push(redisHealth);
    // A node may start while Redis is away: it serves on its local limits and catches up later.
    await redisReady(client, options.redisStartMs ?? 3_000).catch((error: Error) => redisHealth!.failed(error));
    limiter = new SharedRateLimiter({ redis: client, health: redisHealth, clock });
    demo = new SharedDemoLimiter({ redis: client, health: redisHealth, clock, limitPerHour: config.demoLimitPerHour });
  }
  for (const s of stores) s.start();
  return {
    storage, redis, redisHealth, status: new StoreStatus(stores), limiter, demo,
    async close() {
      for (const s of stores) s.close();
      redis?.disconnect();
    },
  };
}

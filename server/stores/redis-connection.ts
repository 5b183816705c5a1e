// One way to open Redis from REDIS_URL (`redis://`, `rediss://`, `unix:///path`), with the
// options every shared-state user relies on: a command never waits longer than `commandTimeoutMs`
// (a frozen Redis must not stall requests), nothing is queued while disconnected (callers fall back
// to local limits at once), and the client reconnects forever in the background.
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisConnectionOptions {
  /** Longest wait for one command before it rejects; default 250 ms. */
  commandTimeoutMs?: number;
  /** Name shown by `CLIENT LIST` (the node id helps an operator). */
  connectionName?: string;
}

function redisOptionsFor(redisUrl: string, options: RedisConnectionOptions = {}): RedisOptions {
  const url = new URL(redisUrl);
  const common: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect forever, never faster than every 100 ms nor slower than every second.
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
    keepAlive: 10_000,
    lazyConnect: false,
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  };
  if (url.protocol === 'unix:') return { ...common, path: decodeURIComponent(url.pathname) };
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return {
    ...common,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 6379 : Number(url.port),
    db: Number.isInteger(db) ? db : 0,
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
  };
}

/** Opens a client; errors are reported through `onError` (never thrown as unhandled events). */
export function connectRedis(redisUrl: string, onError: (error: Error) => void, options: RedisConnectionOptions = {}): Redis {
  const client = new Redis(redisOptionsFor(redisUrl, options));
  client.on('error', onError);
  return client;
}

/** Resolves once the client is ready, or rejects after `timeoutMs` (start-up checks). */
export function redisReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}

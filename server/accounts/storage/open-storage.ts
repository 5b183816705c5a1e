// The one place that picks where accounts, keys, usage and the metadata log live: PostgreSQL when
// DATABASE_URL is set (shared by every node), else the SQLite file in DATA_DIR. The server and the
// key CLI both open their storage here, so they always agree.
import { PostgresStorage } from './postgres-storage.js';
import { SqliteStorage } from './sqlite-storage.js';
import type { AccountsStorage } from './accounts-storage.js';

export interface StorageSettings {
  dataDir: string;
  databaseUrl: string | undefined;
}

export interface OpenedStorage {
  storage: AccountsStorage;
  /** For messages: the SQLite file's path, or the database URL without its password. */
  where: string;
  kind: 'sqlite' | 'postgres';
}

export interface OpenStorageOptions {
  /** SQLite: how long a write waits for another process's lock (the CLI may wait; the server should not). */
  busyTimeoutMs?: number;
  onError?: (error: Error) => void;
  /** PostgreSQL application_name (e.g. `jsonmend:<NODE_ID>`). */
  name?: string;
}

export async function openStorage(settings: StorageSettings, options: OpenStorageOptions = {}): Promise<OpenedStorage> {
  if (settings.databaseUrl !== undefined) {
    const storage = await PostgresStorage.open({
      databaseUrl: settings.databaseUrl,
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...(options.name === undefined ? {} : { name: options.name }),
    });
    return { storage, where: storage.where, kind: 'postgres' };
  }
  const storage = new SqliteStorage({ dataDir: settings.dataDir, ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  return { storage, where: storage.path, kind: 'sqlite' };
}

// Shared set-up for the accounts tests: a throw-away DATA_DIR per test, removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../server/accounts/storage/sqlite-storage.js';

interface Teardown { teardown(fn: () => void | Promise<void>): void }

export function tempDataDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-accounts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function openStorage(t: Teardown, dataDir = tempDataDir(t), busyTimeoutMs?: number): SqliteStorage {
  const storage = new SqliteStorage({ dataDir, ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }) });
  t.teardown(() => storage.close());
  return storage;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

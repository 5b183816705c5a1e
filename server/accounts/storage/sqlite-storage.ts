// AccountsStorage on an embedded SQLite file (better-sqlite3): `${dataDir}/jsonmend.sqlite`, WAL
// mode so the CLI and the server share it, statements prepared once. Calls are synchronous inside;
// the server calls them only from start-up and background flushers, never per request.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDataDir } from './data-dir.js';
import { migrate } from './migrations.js';
import type {
  AccountsStorage, LastUsed, MetadataRow, NewKey, SeedOutcome, StoredKey, StoredUser, UsageDelta, UserKeyLimits,
} from './accounts-storage.js';
import type { TierName } from '../../config/tiers.js';

export const DB_FILE_NAME = 'jsonmend.sqlite';

export interface SqliteStorageOptions {
  dataDir: string;
  /**
   * How long a write waits for another process's write lock. Keep it short in the server (a flush
   * that cannot get the lock fails and retries later instead of stalling the event loop).
   */
  busyTimeoutMs?: number;
}

interface KeyRow {
  id: string; hash: string; prefix: string; name: string; tier: TierName; user_id: string | null;
  created_at: number; last_used_at: number | null; revoked_at: number | null;
}
interface UserRow { id: string; email: string; password_hash: string; created_at: number }

function toKey(row: KeyRow): StoredKey {
  return {
    id: row.id, hash: row.hash, prefix: row.prefix, name: row.name, tier: row.tier, userId: row.user_id,
    createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at,
  };
}

const INSERT_LOG = `INSERT INTO request_log (time, key_id, endpoint, contract, success, error_code,
  confidence, repair_counts, input_bytes, latency_ms) VALUES`;
const LOG_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const LOG_COLUMNS = 10;
/** Rows per INSERT statement (500 parameters, far below SQLite's limit of 32,766). */
const LOG_CHUNK_ROWS = 50;

function logParams(r: MetadataRow, into: unknown[], at: number): void {
  into[at] = r.time;
  into[at + 1] = r.keyId;
  into[at + 2] = r.endpoint;
  into[at + 3] = r.contract;
  into[at + 4] = r.success ? 1 : 0;
  into[at + 5] = r.errorCode;
  into[at + 6] = r.confidence;
  into[at + 7] = JSON.stringify(r.repairCounts);
  into[at + 8] = r.inputBytes;
  into[at + 9] = r.latencyMs;
}

export function dbPathFor(dataDir: string): string {
  return join(dataDir, DB_FILE_NAME);
}

export class SqliteStorage implements AccountsStorage {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #s;
  readonly #tx;

  constructor(options: SqliteStorageOptions) {
    makeDataDir(options.dataDir);
    this.path = dbPathFor(options.dataDir);
    const db = new Database(this.path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 50))}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    this.#db = db;
    const s = {
      insertKey: db.prepare(`INSERT INTO api_keys (id, hash, prefix, name, tier, user_id, created_at)
        VALUES (@id, @hash, @prefix, @name, @tier, @userId, @createdAt)`),
      keyByHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      setTier: db.prepare('UPDATE api_keys SET tier = ? WHERE id = ?'),
      listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      activeByUser: db.prepare('SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL').pluck(),
      madeByUserSince: db.prepare('SELECT count(*) FROM api_keys WHERE user_id = ? AND created_at > ?').pluck(),
      keysByUser: db.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, id'),
      prefixExists: db.prepare('SELECT EXISTS (SELECT 1 FROM api_keys WHERE prefix = ?)').pluck(),
      activeKeys: db.prepare('SELECT * FROM api_keys WHERE revoked_at IS NULL'),
      revokeCandidates: db.prepare('SELECT * FROM api_keys WHERE (id = ? OR prefix = ?) AND revoked_at IS NULL'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      bumpVersion: db.prepare('UPDATE keys_version SET version = version + 1 WHERE id = 1'),
      version: db.prepare('SELECT version FROM keys_version WHERE id = 1').pluck(),
      touch: db.prepare(`UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`),
      addUsage: db.prepare(`INSERT INTO monthly_usage (key_id, month, count) VALUES (?, ?, ?)
        ON CONFLICT (key_id, month) DO UPDATE SET count = count + excluded.count`),
      usage: db.prepare('SELECT count FROM monthly_usage WHERE key_id = ? AND month = ?').pluck(),
      usageForMonth: db.prepare('SELECT key_id, count FROM monthly_usage WHERE month = ?'),
      insertLog: db.prepare(`${INSERT_LOG} ${LOG_VALUES}`),
      insertLogChunk: db.prepare(`${INSERT_LOG} ${Array<string>(LOG_CHUNK_ROWS).fill(LOG_VALUES).join(', ')}`),
      deleteOld: db.prepare(`DELETE FROM request_log WHERE id IN
        (SELECT id FROM request_log WHERE time < ? ORDER BY time LIMIT ?)`),
      countLog: db.prepare('SELECT count(*) FROM request_log').pluck(),
      insertUser: db.prepare('INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)'),
      userByEmail: db.prepare('SELECT * FROM users WHERE email = ?'),
    };
    this.#s = s;
    this.#tx = {
      createKey: db.transaction((k: NewKey) => {
        s.insertKey.run({ ...k, userId: k.userId ?? null });
        s.bumpVersion.run();
      }),
      createUserKey: db.transaction((k: NewKey & { userId: string }, limits: UserKeyLimits): 'active-limit' | 'day-limit' | null => {
        if ((s.activeByUser.get(k.userId) as number) >= limits.maxActive) return 'active-limit';
        if ((s.madeByUserSince.get(k.userId, k.createdAt - limits.dayMs) as number) >= limits.maxPerDay) return 'day-limit';
        s.insertKey.run(k);
        s.bumpVersion.run();
        return null;
      }),
      seedKey: db.transaction((k: NewKey): SeedOutcome => {
        const existing = s.keyByHash.get(k.hash) as KeyRow | undefined;
        if (existing === undefined) {
          s.insertKey.run({ ...k, userId: k.userId ?? null });
          s.bumpVersion.run();
          return 'inserted';
        }
        if (existing.revoked_at !== null) return 'revoked';
        if (existing.tier === k.tier) return 'unchanged';
        s.setTier.run(k.tier, existing.id);
        s.bumpVersion.run();
        return 'updated';
      }),
      revoke: db.transaction((idOrPrefix: string, at: number) => {
        const matches = (s.revokeCandidates.all(idOrPrefix, idOrPrefix) as KeyRow[]).map(toKey);
        if (matches.length !== 1) return { revoked: null, matches };
        s.revoke.run(at, matches[0]!.id);
        s.bumpVersion.run();
        return { revoked: toKey(s.keyById.get(matches[0]!.id) as KeyRow), matches };
      }),
      touch: db.transaction((batch: readonly LastUsed[]) => {
        for (const t of batch) s.touch.run(t.at, t.keyId);
      }),
      addUsage: db.transaction((batch: readonly UsageDelta[]) => {
        for (const d of batch) s.addUsage.run(d.keyId, d.month, d.count);
      }),
      insertLog: db.transaction((rows: readonly MetadataRow[]) => {
        // Whole chunks through the many-row statement (measured here: about 2 µs a row instead
        // of 5 with the time index), the remainder one row at a time.
        const chunked = rows.length - (rows.length % LOG_CHUNK_ROWS);
        const params: unknown[] = new Array(LOG_CHUNK_ROWS * LOG_COLUMNS);
        for (let at = 0; at < chunked; at += LOG_CHUNK_ROWS) {
          for (let j = 0; j < LOG_CHUNK_ROWS; j++) logParams(rows[at + j]!, params, j * LOG_COLUMNS);
          s.insertLogChunk.run(params);
        }
        const one: unknown[] = new Array(LOG_COLUMNS);
        for (let i = chunked; i < rows.length; i++) {
          logParams(rows[i]!, one, 0);
          s.insertLog.run(one);
        }
      }),
    };
  }

  async createKey(key: NewKey): Promise<StoredKey> {
    this.#tx.createKey(key);
    return toKey(this.#s.keyById.get(key.id) as KeyRow);
  }

  async createUserKey(key: NewKey & { userId: string }, limits: UserKeyLimits): Promise<StoredKey | 'active-limit' | 'day-limit'> {
    // IMMEDIATE: the counts and the insert hold the write lock together, across processes too.
    const refused = this.#tx.createUserKey.immediate(key, limits);
    return refused ?? toKey(this.#s.keyById.get(key.id) as KeyRow);
  }

  async seedKey(key: NewKey): Promise<SeedOutcome> {
    return this.#tx.seedKey.immediate(key);
  }

  async listKeys(): Promise<StoredKey[]> {
    return (this.#s.listKeys.all() as KeyRow[]).map(toKey);
  }

  async listKeysByUser(userId: string): Promise<StoredKey[]> {
    return (this.#s.keysByUser.all(userId) as KeyRow[]).map(toKey);
  }

  async keyPrefixExists(prefix: string): Promise<boolean> {
    return this.#s.prefixExists.get(prefix) === 1;
  }

  async revokeKey(idOrPrefix: string, at: number): Promise<{ revoked: StoredKey | null; matches: StoredKey[] }> {
    return this.#tx.revoke.immediate(idOrPrefix, at);
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    const row = this.#s.keyByHash.get(hash) as KeyRow | undefined;
    return row === undefined ? undefined : toKey(row);
  }

  async loadAllActiveKeys(): Promise<StoredKey[]> {
    return (this.#s.activeKeys.all() as KeyRow[]).map(toKey);
  }

  async keysVersion(): Promise<number> {
    return this.#s.version.get() as number;
  }

  async touchLastUsed(batch: readonly LastUsed[]): Promise<void> {
    if (batch.length > 0) this.#tx.touch(batch);
  }

  async addMonthlyUsage(batch: readonly UsageDelta[]): Promise<void> {
    if (batch.length > 0) this.#tx.addUsage(batch);
  }

  async getMonthlyUsage(keyId: string, month: string): Promise<number> {
    return (this.#s.usage.get(keyId, month) as number | undefined) ?? 0;
  }

  async loadMonthlyUsage(month: string): Promise<Map<string, number>> {
    const rows = this.#s.usageForMonth.all(month) as Array<{ key_id: string; count: number }>;
    return new Map(rows.map((r) => [r.key_id, r.count]));
  }

  async insertMetadata(rows: readonly MetadataRow[]): Promise<void> {
    if (rows.length > 0) this.#tx.insertLog(rows);
  }

  async deleteMetadataOlderThan(cutoff: number, limit: number): Promise<number> {
    return this.#s.deleteOld.run(cutoff, limit).changes;
  }

  async countMetadata(): Promise<number> {
    return this.#s.countLog.get() as number;
  }

  async createUser(user: StoredUser): Promise<StoredUser> {
    this.#s.insertUser.run(user.id, user.email, user.passwordHash, user.createdAt);
    return user;
  }

  async findUserByEmail(email: string): Promise<StoredUser | undefined> {
    const row = this.#s.userByEmail.get(email) as UserRow | undefined;
    return row === undefined
      ? undefined
      : { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

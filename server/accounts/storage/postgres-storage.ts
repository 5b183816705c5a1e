// AccountsStorage on PostgreSQL (DATABASE_URL): the records every node shares. Like the SQLite
// storage it is called only from start-up, the CLI, the console and background flushers, never on
// the request hot path. Batches go in as one statement over unnest()ed arrays. Every key change bumps
// keys_version and NOTIFYs in the same transaction, so the other nodes reload at its commit.
import type pg from 'pg';
import { connectPostgres } from '../../stores/postgres-connection.js';
import { StoreUnavailable } from '../../stores/store-health.js';
import type { TierName } from '../../config/tiers.js';
import { KEYS_CHANNEL, migratePostgres } from './pg-migrations.js';
import { PgSession } from './pg-session.js';
import type {
  AccountsStorage, LastUsed, MetadataRow, NewKey, SeedOutcome, StoredKey, StoredUser, UsageDelta, UserKeyLimits,
} from './accounts-storage.js';

interface KeyRow {
  id: string; hash: string; prefix: string; name: string; tier: TierName; user_id: string | null;
  created_at: string; last_used_at: string | null; revoked_at: string | null;
}

/** How long a usage batch id is remembered against a retried flush (retries come seconds later). */
const USAGE_BATCH_RETENTION_MS = 24 * 60 * 60 * 1000;
const num = (v: string | null): number | null => (v === null ? null : Number(v));

function toKey(r: KeyRow): StoredKey {
  return {
    id: r.id, hash: r.hash, prefix: r.prefix, name: r.name, tier: r.tier, userId: r.user_id,
    createdAt: Number(r.created_at), lastUsedAt: num(r.last_used_at), revokedAt: num(r.revoked_at),
  };
}

const INSERT_KEY = `INSERT INTO api_keys (id, hash, prefix, name, tier, user_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`;
const keyParams = (k: NewKey): unknown[] => [k.id, k.hash, k.prefix, k.name, k.tier, k.userId ?? null, k.createdAt];
const BUMP = `WITH v AS (UPDATE keys_version SET version = version + 1 WHERE id = 1 RETURNING version)
  SELECT pg_notify('${KEYS_CHANNEL}', version::text) FROM v`;

export interface PostgresStorageOptions {
  databaseUrl: string;
  onError?: (error: Error) => void;
  /** Shown in pg_stat_activity (the node id helps an operator find the retention leader). */
  name?: string;
}

export class PostgresStorage implements AccountsStorage {
  /** For messages: the database, without credentials. */
  readonly where: string;
  readonly #pool: pg.Pool;
  readonly #session: PgSession;

  private constructor(options: PostgresStorageOptions) {
    const onError = options.onError ?? (() => {});
    const name = options.name ?? 'jsonmend';
    this.#pool = connectPostgres(options.databaseUrl, onError, { applicationName: name });
    this.#session = new PgSession(options.databaseUrl, onError, `${name}-session`);
    this.where = describe(options.databaseUrl);
  }

  /** Connects and migrates (both bounded by the connection's timeouts). */
  static async open(options: PostgresStorageOptions): Promise<PostgresStorage> {
    const storage = new PostgresStorage(options);
    try {
      await migratePostgres(storage.#pool);
    } catch (error) {
      await storage.close();
      throw error;
    }
    return storage;
  }

  /** The pool, for the store health probe. */
  get pool(): pg.Pool { return this.#pool; }

  watchKeys(onChange: () => void): void {
    this.#session.onKeysChanged(onChange);
  }

  /** Whether this node may run the retention deletes (it holds the leader lock, or just took it). */
  isRetentionLeader(): Promise<boolean> {
    return this.#session.tryLead();
  }

  /** One query; a database that cannot be reached surfaces as StoreUnavailable (the console answers 503). */
  async #query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(sql, params);
    } catch (error) {
      throw unreachable(error);
    }
  }

  async #tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((error: unknown) => { throw unreachable(error); });
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw unreachable(error);
    } finally {
      client.release();
    }
  }

  createKey(key: NewKey): Promise<StoredKey> {
    return this.#tx(async (c) => {
      const { rows } = await c.query<KeyRow>(INSERT_KEY, keyParams(key));
      await c.query(BUMP);
      return toKey(rows[0]!);
    });
  }

  createUserKey(key: NewKey & { userId: string }, limits: UserKeyLimits): Promise<StoredKey | 'active-limit' | 'day-limit'> {
    return this.#tx(async (c) => {
      // The user's row lock serialises key changes of one user across every node.
      await c.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [key.userId]);
      const { rows: [n] } = await c.query<{ active: string; today: string }>(
        `SELECT count(*) FILTER (WHERE revoked_at IS NULL) AS active, count(*) FILTER (WHERE created_at > $2) AS today
         FROM api_keys WHERE user_id = $1`, [key.userId, key.createdAt - limits.dayMs]);
      if (Number(n!.active) >= limits.maxActive) return 'active-limit';
      if (Number(n!.today) >= limits.maxPerDay) return 'day-limit';
      const { rows } = await c.query<KeyRow>(INSERT_KEY, keyParams(key));
      await c.query(BUMP);
      return toKey(rows[0]!);
    });
  }

  seedKey(key: NewKey): Promise<SeedOutcome> {
    return this.#tx(async (c) => {
      // Two nodes seeding the same API_KEYS at once: the second waits for the first's row.
      const { rows } = await c.query<KeyRow>(
        `INSERT INTO api_keys (id, hash, prefix, name, tier, user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (hash) DO NOTHING RETURNING *`, keyParams(key));
      if (rows.length === 1) {
        await c.query(BUMP);
        return 'inserted';
      }
      const { rows: [existing] } = await c.query<KeyRow>('SELECT * FROM api_keys WHERE hash = $1 FOR UPDATE', [key.hash]);
      if (existing!.revoked_at !== null) return 'revoked';
      if (existing!.tier === key.tier) return 'unchanged';
      await c.query('UPDATE api_keys SET tier = $1 WHERE id = $2', [key.tier, existing!.id]);
      await c.query(BUMP);
      return 'updated';
    });
  }

  async listKeys(): Promise<StoredKey[]> {
    return (await this.#query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).rows.map(toKey);
  }

  async listKeysByUser(userId: string): Promise<StoredKey[]> {
    return (await this.#query<KeyRow>('SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at, id', [userId])).rows.map(toKey);
  }

  async keyPrefixExists(prefix: string): Promise<boolean> {
    return (await this.#query('SELECT 1 FROM api_keys WHERE prefix = $1 LIMIT 1', [prefix])).rowCount === 1;
  }

  revokeKey(idOrPrefix: string, at: number): Promise<{ revoked: StoredKey | null; matches: StoredKey[] }> {
    return this.#tx(async (c) => {
      const { rows } = await c.query<KeyRow>(
        'SELECT * FROM api_keys WHERE (id = $1 OR prefix = $1) AND revoked_at IS NULL FOR UPDATE', [idOrPrefix]);
      const matches = rows.map(toKey);
      if (matches.length !== 1) return { revoked: null, matches };
      const { rows: [revoked] } = await c.query<KeyRow>(
        'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 RETURNING *', [at, matches[0]!.id]);
      await c.query(BUMP);
      return { revoked: toKey(revoked!), matches };
    });
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    const { rows } = await this.#query<KeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash]);
    return rows.length === 0 ? undefined : toKey(rows[0]!);
  }

  async loadAllActiveKeys(): Promise<StoredKey[]> {
    return (await this.#query<KeyRow>('SELECT * FROM api_keys WHERE revoked_at IS NULL')).rows.map(toKey);
  }

  async keysVersion(): Promise<number> {
    const { rows } = await this.#query<{ version: string }>('SELECT version FROM keys_version WHERE id = 1');
    return Number(rows[0]!.version);
  }

  async touchLastUsed(batch: readonly LastUsed[]): Promise<void> {
    if (batch.length === 0) return;
    await this.#query(
      `UPDATE api_keys a SET last_used_at = GREATEST(coalesce(a.last_used_at, 0), v.at)
       FROM unnest($1::text[], $2::bigint[]) AS v(id, at) WHERE a.id = v.id`,
      [batch.map((t) => t.keyId), batch.map((t) => t.at)]);
  }

  async addMonthlyUsage(batch: readonly UsageDelta[], batchId?: string): Promise<void> {
    if (batch.length === 0) return;
    // One row per (key, month): ON CONFLICT may not touch a row twice in one statement.
    const sums = new Map<string, UsageDelta>();
    for (const d of batch) {
      const id = `${d.month}\u0000${d.keyId}`;
      const s = sums.get(id);
      if (s === undefined) sums.set(id, { ...d });
      else s.count += d.count;
    }
    const rows = [...sums.values()];
    const columns = [rows.map((d) => d.keyId), rows.map((d) => d.month), rows.map((d) => d.count)];
    if (batchId === undefined) {
      await this.#query(
        `INSERT INTO monthly_usage (key_id, month, count)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT (key_id, month) DO UPDATE SET count = monthly_usage.count + excluded.count`, columns);
      return;
    }
    // One statement, so one transaction: the batch id is claimed and the counts added together, or
    // neither. A batch sent again (its first write timed out here but committed there) finds its id
    // taken, inserts nothing, and adds nothing; a concurrent second send waits on the id's index.
    await this.#query(
      `WITH claimed AS (INSERT INTO usage_batches (id, at) VALUES ($4, $5) ON CONFLICT (id) DO NOTHING RETURNING id)
       INSERT INTO monthly_usage (key_id, month, count)
       SELECT u.key_id, u.month, u.count FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(key_id, month, count)
       WHERE EXISTS (SELECT 1 FROM claimed)
       ON CONFLICT (key_id, month) DO UPDATE SET count = monthly_usage.count + excluded.count`,
      [...columns, batchId, Date.now()]);
  }

  async getMonthlyUsage(keyId: string, month: string): Promise<number> {
    const { rows } = await this.#query<{ count: string }>('SELECT count FROM monthly_usage WHERE key_id = $1 AND month = $2', [keyId, month]);
    return rows.length === 0 ? 0 : Number(rows[0]!.count);
  }

  async loadMonthlyUsage(month: string): Promise<Map<string, number>> {
    const { rows } = await this.#query<{ key_id: string; count: string }>('SELECT key_id, count FROM monthly_usage WHERE month = $1', [month]);
    return new Map(rows.map((r) => [r.key_id, Number(r.count)]));
  }

  async insertMetadata(rows: readonly MetadataRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.#query(
      // A row sent again under its row key (a retried batch) is stored once.
      `INSERT INTO request_log (time, key_id, endpoint, contract, success, error_code, confidence, repair_counts, input_bytes, latency_ms, row_key)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::int[], $10::float8[], $11::text[])
       ON CONFLICT (row_key) DO NOTHING`,
      [
        rows.map((r) => r.time), rows.map((r) => r.keyId), rows.map((r) => r.endpoint), rows.map((r) => r.contract),
        rows.map((r) => r.success), rows.map((r) => r.errorCode), rows.map((r) => r.confidence),
        rows.map((r) => JSON.stringify(r.repairCounts)), rows.map((r) => r.inputBytes), rows.map((r) => r.latencyMs),
        rows.map((r) => r.rowKey ?? null),
      ]);
  }

  /** Only the retention leader deletes; on every other node this is a no-op returning 0. */
  async deleteMetadataOlderThan(cutoff: number, limit: number): Promise<number> {
    if (!(await this.isRetentionLeader())) return 0;
    // Batch ids only matter while a flush may still be retried: a day keeps them far past that.
    await this.#query('DELETE FROM usage_batches WHERE at < $1', [Date.now() - USAGE_BATCH_RETENTION_MS]);
    const { rowCount } = await this.#query(
      'DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE time < $1 ORDER BY time LIMIT $2)', [cutoff, limit]);
    return rowCount ?? 0;
  }

  async countMetadata(): Promise<number> {
    return Number((await this.#query<{ n: string }>('SELECT count(*) AS n FROM request_log')).rows[0]!.n);
  }

  async createUser(user: StoredUser): Promise<StoredUser> {
    await this.#query('INSERT INTO users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)',
      [user.id, user.email, user.passwordHash, user.createdAt]);
    return user;
  }

  async findUserByEmail(email: string): Promise<StoredUser | undefined> {
    const { rows } = await this.#query<{ id: string; email: string; password_hash: string; created_at: string }>(
      'SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
    const r = rows[0];
    return r === undefined ? undefined : { id: r.id, email: r.email, passwordHash: r.password_hash, createdAt: Number(r.created_at) };
  }

  async close(): Promise<void> {
    await this.#session.close();
    await this.#pool.end().catch(() => {});
  }
}

/**
 * Errors that mean "the database is not there" (refused, reset, shut down, timed out) become
 * StoreUnavailable; SQL errors (a UNIQUE violation, a bad statement) pass through unchanged.
 */
function unreachable(error: unknown): unknown {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  const gone = ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03'].includes(code)
    || /Connection terminated|timeout|not queryable/i.test(message);
  return gone ? new StoreUnavailable('postgres', error) : error;
}

/** `postgres://user@host:port/db` without the password (or the socket dir for ?host=). */
function describe(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  return `PostgreSQL ${url.toString()}`;
}

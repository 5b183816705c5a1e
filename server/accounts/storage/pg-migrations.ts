// The PostgreSQL schema (DATABASE_URL), the same tables as the SQLite one (migrations.ts) in
// PostgreSQL types: times are epoch milliseconds in BIGINT. Applied at every start under a
// transaction-scoped advisory lock, so nodes starting at once take turns: the first migrates, the
// others wait, then find the version current and do nothing. Append entries; never edit a shipped one.
import type pg from 'pg';
import type { Migration } from './migrations.js';

/** Advisory lock ids (any two bigints unique to jsonmend): migrations, and the retention leader. */
export const MIGRATION_LOCK = 0x6a736d31; // 'jsm1'
export const RETENTION_LOCK = 0x6a736d32; // 'jsm2'
/** NOTIFY channel of key creations, seeds and revocations (payload: the new keys version). */
export const KEYS_CHANNEL = 'jsonmend_keys';

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX users_email ON users (lower(email));
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        tier TEXT NOT NULL CHECK (tier IN ('free','pro','team','scale','unlimited')),
        user_id TEXT REFERENCES users(id),
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX api_keys_prefix ON api_keys (prefix);
      CREATE INDEX api_keys_user ON api_keys (user_id);
      CREATE TABLE keys_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version BIGINT NOT NULL
      );
      INSERT INTO keys_version (id, version) VALUES (1, 0);
      CREATE TABLE monthly_usage (
        key_id TEXT NOT NULL,
        month TEXT NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (key_id, month)
      );
      CREATE TABLE request_log (
        id BIGSERIAL PRIMARY KEY,
        time BIGINT NOT NULL,
        key_id TEXT,
        endpoint TEXT NOT NULL,
        contract TEXT NOT NULL,
        success BOOLEAN NOT NULL,
        error_code TEXT,
        confidence TEXT,
        repair_counts TEXT NOT NULL,
        input_bytes INTEGER NOT NULL,
        latency_ms DOUBLE PRECISION NOT NULL
      );
      CREATE INDEX request_log_time ON request_log (time);
    `,
  },
  {
    // Writes a node may send twice: a usage flush or a metadata batch whose query timed out on the
    // node after PostgreSQL committed it (a stalled database) is sent again. The batch id and the
    // row key make the second write add nothing (docs/reliability.md).
    version: 2,
    sql: `
      CREATE TABLE usage_batches (
        id TEXT PRIMARY KEY,
        at BIGINT NOT NULL
      );
      ALTER TABLE request_log ADD COLUMN row_key TEXT;
      CREATE UNIQUE INDEX request_log_row_key ON request_log (row_key);
    `,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** Brings the database to PG_SCHEMA_VERSION; returns it. Safe with many nodes starting at once. */
export async function migratePostgres(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Held to COMMIT: a second node blocks here until the first has applied everything.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version');
    const from = rows[0]?.v ?? 0;
    if (from > PG_SCHEMA_VERSION) {
      throw new Error(`database schema version ${from} is newer than this build (${PG_SCHEMA_VERSION}); upgrade jsonmend`);
    }
    for (const m of PG_MIGRATIONS) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_version (version) VALUES ($1)', [m.version]);
    }
    await client.query('COMMIT');
    return PG_SCHEMA_VERSION;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

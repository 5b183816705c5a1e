// Schema migrations, applied in order at open. Append new entries; never edit a shipped one.
import type Database from 'better-sqlite3';

export interface Migration { version: number; sql: string }

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        tier TEXT NOT NULL CHECK (tier IN ('free','pro','team','scale','unlimited')),
        user_id TEXT REFERENCES users(id),
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_prefix ON api_keys(prefix);
      CREATE TABLE keys_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      INSERT INTO keys_version (id, version) VALUES (1, 0);
      CREATE TABLE monthly_usage (
        key_id TEXT NOT NULL,
        month TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, month)
      ) WITHOUT ROWID;
      CREATE TABLE request_log (
        id INTEGER PRIMARY KEY,
        time INTEGER NOT NULL,
        key_id TEXT,
        endpoint TEXT NOT NULL,
        contract TEXT NOT NULL,
        success INTEGER NOT NULL,
        error_code TEXT,
        confidence TEXT,
        repair_counts TEXT NOT NULL,
        input_bytes INTEGER NOT NULL,
        latency_ms REAL NOT NULL
      );
      CREATE INDEX request_log_time ON request_log(time);
    `,
  },
  {
    // The web console lists a user's keys (server/web/console).
    version: 2,
    sql: 'CREATE INDEX api_keys_user ON api_keys(user_id);',
  },
  {
    // Usage is counted per account (a console user's keys share one quota; monthly_usage.key_id
    // then holds the user's id): give each user the sum of the counts its keys already have.
    version: 3,
    sql: `
      INSERT INTO monthly_usage (key_id, month, count)
        SELECT k.user_id, u.month, sum(u.count) FROM monthly_usage u JOIN api_keys k ON k.id = u.key_id
        WHERE k.user_id IS NOT NULL GROUP BY k.user_id, u.month;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Brings the database to SCHEMA_VERSION. Safe when several processes open the file at once. */
export function migrate(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const current = (): number =>
    (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  // IMMEDIATE takes the write lock first, so a second process waits, then sees the new version.
  const apply = db.transaction(() => {
    const from = current();
    if (from > SCHEMA_VERSION) {
      throw new Error(`database schema version ${from} is newer than this build (${SCHEMA_VERSION}); upgrade jsonmend`);
    }
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(m.version);
    }
    return current();
  });
  return apply.immediate();
}

// One way to open PostgreSQL from DATABASE_URL (`postgres://user[:password]@host:port/db`, or
// `?host=/socket/dir` for a unix socket, which pg's connection-string parser understands). Every
// query is bounded (`statement_timeout`, `query_timeout`) so a stopped or stuck database turns into
// an error the caller handles, never a request or a background flush that hangs.
import pg from 'pg';

export interface PostgresConnectionOptions {
  /** Pool size; default 4 (background flushes and the console, not the request hot path). */
  max?: number;
  /** Longest wait for one query, client side and server side; default 5 s. */
  queryTimeoutMs?: number;
  applicationName?: string;
}

export function connectPostgres(databaseUrl: string, onError: (error: Error) => void, options: PostgresConnectionOptions = {}): pg.Pool {
  const timeout = options.queryTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 4,
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
    query_timeout: timeout,
    statement_timeout: timeout,
    application_name: options.applicationName ?? 'jsonmend',
  });
  // An idle client whose server went away emits here; the next query gets a fresh connection.
  pool.on('error', onError);
  return pool;
}

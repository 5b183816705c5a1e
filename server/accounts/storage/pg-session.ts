// One long-lived PostgreSQL connection per node, outside the pool, for the two things that belong to
// a connection rather than a query: LISTEN for key changes (another node or the key CLI created or
// revoked one: reload at once instead of at the next version probe) and the retention leader's
// session advisory lock (held while the connection lives, so exactly one node deletes old metadata;
// when that node dies its connection closes and the next node to try takes over). Reconnects by itself.
import pg from 'pg';
import { KEYS_CHANNEL, RETENTION_LOCK } from './pg-migrations.js';

export class PgSession {
  readonly #url: string;
  readonly #onError: (error: Error) => void;
  readonly #listeners: Array<() => void> = [];
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #leader = false;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  readonly #name: string;

  constructor(url: string, onError: (error: Error) => void, name = 'jsonmend-session') {
    this.#url = url;
    this.#name = name;
    this.#onError = onError;
  }

  /** Calls `listener` on every key change notification (and after a reconnect, which may have missed some). */
  onKeysChanged(listener: () => void): void {
    this.#listeners.push(listener);
    void this.#connect().catch(() => {});
  }

  /** True when this node holds (or just took) the retention lock. */
  async tryLead(): Promise<boolean> {
    if (this.#leader) return true;
    const client = await this.#connect();
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [RETENTION_LOCK]);
    this.#leader = rows[0]?.ok === true;
    return this.#leader;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#leader = false;
    await client?.end().catch(() => {});
  }

  #connect(): Promise<pg.Client> {
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    if (this.#closed) return Promise.reject(new Error('closed'));
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 2_000, query_timeout: 5_000, application_name: this.#name });
      client.on('error', (error) => this.#lost(client, error));
      client.on('end', () => this.#lost(client, undefined));
      client.on('notification', () => this.#notify());
      try {
        await client.connect();
        await client.query(`LISTEN ${KEYS_CHANNEL}`);
      } catch (error) {
        client.end().catch(() => {});
        this.#scheduleRetry();
        throw error;
      }
      this.#client = client;
      // Changes made while this connection was down were never notified: reload once.
      this.#notify();
      return client;
    })().finally(() => { this.#connecting = undefined; });
    return this.#connecting;
  }

  #lost(client: pg.Client, error: Error | undefined): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#leader = false;
    if (error !== undefined) this.#onError(error);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry !== undefined || this.#listeners.length === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect().catch(() => {});
    }, 500);
    this.#retry.unref();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}

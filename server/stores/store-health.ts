// Whether a shared store (Redis, PostgreSQL) answers right now. Users of a store report each
// failed operation (a refused connection, a command timeout on a frozen server) and the store is
// marked down at once, so the request path switches to its local fallback without waiting; a probe
// every `intervalMs` (bounded by the connection's own timeouts) marks it up again when it answers.
// /health reports the stores that are down (status `degraded`), /metrics counts failures and outages.
import { metricFamily } from '../observe/metrics.js';

export type StoreName = 'redis' | 'postgres';

export class StoreHealth {
  readonly name: StoreName;
  readonly intervalMs: number;
  readonly #probe: () => Promise<unknown>;
  readonly #onChange: (up: boolean, error: unknown) => void;
  #up = true;
  /** Operations that failed (counter). */
  failures = 0;
  /** Times the store went from up to down (counter). */
  outages = 0;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;

  constructor(name: StoreName, probe: () => Promise<unknown>, options: { intervalMs?: number; onChange?: (up: boolean, error: unknown) => void } = {}) {
    this.name = name;
    this.#probe = probe;
    this.intervalMs = options.intervalMs ?? 500;
    this.#onChange = options.onChange ?? (() => {});
  }

  get up(): boolean { return this.#up; }

  failed(error: unknown): void {
    this.failures++;
    if (!this.#up) return;
    this.#up = false;
    this.outages++;
    this.#onChange(false, error);
  }

  succeeded(): void {
    if (this.#up) return;
    this.#up = true;
    this.#onChange(true, undefined);
  }

  /** Runs `op`, recording its outcome; the promise still rejects for the caller to fall back. */
  async track<T>(op: Promise<T>): Promise<T> {
    try {
      const value = await op;
      this.succeeded();
      return value;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.check(), this.intervalMs);
    this.#timer.unref();
  }

  /** One probe now (the timer's; tests call it too). */
  async check(): Promise<boolean> {
    if (this.#probing) return this.#up;
    this.#probing = true;
    try {
      await this.track(this.#probe());
    } catch {
      // recorded by track()
    } finally {
      this.#probing = false;
    }
    return this.#up;
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** /health's `stores` object and the stores that are down, and the /metrics lines, for a set of stores. */
export class StoreStatus {
  readonly stores: readonly StoreHealth[];

  constructor(stores: readonly StoreHealth[]) {
    this.stores = stores;
  }

  /** Names of the stores that are down right now (empty: all answer). */
  down(): StoreName[] {
    return this.stores.filter((s) => !s.up).map((s) => s.name);
  }

  /** `{ redis: 'up', postgres: 'down' }` for /health. */
  summary(): Record<string, 'up' | 'down'> {
    const out: Record<string, 'up' | 'down'> = {};
    for (const s of this.stores) out[s.name] = s.up ? 'up' : 'down';
    return out;
  }

  metricLines(): string[] {
    if (this.stores.length === 0) return [];
    const lines: string[] = [];
    metricFamily(lines, 'jsonmend_store_up', 'gauge', 'Whether a shared store answers (1) or the node runs on its local fallback (0).');
    for (const s of this.stores) lines.push(`jsonmend_store_up{store="${s.name}"} ${s.up ? 1 : 0}`);
    metricFamily(lines, 'jsonmend_store_failures_total', 'counter', 'Operations on a shared store that failed or timed out.');
    for (const s of this.stores) lines.push(`jsonmend_store_failures_total{store="${s.name}"} ${s.failures}`);
    metricFamily(lines, 'jsonmend_store_outages_total', 'counter', 'Times a shared store went from answering to not answering.');
    for (const s of this.stores) lines.push(`jsonmend_store_outages_total{store="${s.name}"} ${s.outages}`);
    return lines;
  }
}

/** A shared store could not be reached for an operation that has no local fallback (console sessions). */
export class StoreUnavailable extends Error {
  constructor(readonly store: StoreName, cause: unknown) {
    super(`${store} is unavailable: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

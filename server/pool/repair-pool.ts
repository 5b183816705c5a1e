// The Piscina pool that runs large repairs. It answers at once when full, gives each task a
// deadline, and turns a dead or stopped worker into INTERNAL_ERROR (FACTS.md "Piscina").
import { Piscina } from 'piscina';
import { makeError } from '../../engine/error-codes.js';
import type { RepairError, Warning } from '../../engine/types.js';
import type { BatchEndpoint, RepairTaskResult, RepairTaskSettings } from '../tasks/repair-task.js';

export interface WorkerTask {
  endpoint: BatchEndpoint;
  /** Transferred to the worker: the caller must not touch it after submit(). */
  body: ArrayBuffer;
  warnings: readonly Warning[] | null;
}

export interface RepairPoolOptions {
  workers: number;
  queueMax: number;
  taskTimeoutMs: number;
  settings: RepairTaskSettings;
  testHooks: boolean;
  onPoolError: (error: unknown) => void;
}

export type PoolAnswer = RepairTaskResult | RepairError;

const SHUTTING_DOWN = makeError('SERVICE_UNAVAILABLE', 'The server is shutting down and no longer runs repairs.', {
  suggestion: 'Retry on another instance, or in a moment once it has restarted.',
});

function emptyTask(): WorkerTask {
  return { endpoint: 'repair', body: new ArrayBuffer(0), warnings: null };
}

export function isPoolError(answer: PoolAnswer): answer is RepairError {
  return (answer as RepairError).code !== undefined;
}

export class RepairPool {
  readonly workers: number;
  readonly queueMax: number;
  readonly #pool: Piscina<WorkerTask, RepairTaskResult>;
  readonly #timeoutMs: number;
  readonly #timeoutError: RepairError;
  #pending = 0;
  /** Every first worker has loaded the engine (see the constructor); until then tasks wait for it. */
  readonly #loaded: Promise<void>;
  #isLoaded = false;
  readonly #settle = (): void => {
    this.#pending--;
  };
  #closing = false;
  readonly #toError = (error: unknown): RepairError => {
    // Piscina rejects with AbortError both when our deadline fires (its cause is the signal's
    // TimeoutError) and when a task meets a closing pool: only the first is a timeout.
    const failure = error as (Error & { cause?: { name?: string } }) | undefined;
    if (failure?.name === 'AbortError' && failure.cause?.name === 'TimeoutError') return this.#timeoutError;
    if (this.#closing) return SHUTTING_DOWN;
    return makeError('INTERNAL_ERROR', 'The worker running this repair stopped unexpectedly; it has been replaced.');
  };

  constructor(options: RepairPoolOptions) {
    this.workers = options.workers;
    this.queueMax = options.queueMax;
    this.#timeoutMs = options.taskTimeoutMs;
    this.#timeoutError = makeError('INTERNAL_ERROR', `The repair did not finish within ${options.taskTimeoutMs} ms and was stopped.`);
    this.#pool = new Piscina({
      filename: new URL('./repair-worker.js', import.meta.url).href,
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: Infinity,
      // Our own bound (below) answers before Piscina would reject, so its queue is never the limit.
      maxQueue: Infinity,
      workerData: { settings: options.settings, testHooks: options.testHooks },
    });
    // Without a listener, an error outside a task (a worker failing to start) kills the process.
    this.#pool.on('error', options.onPoolError);
    // Piscina counts its first workers ready before they have loaded anything, so a task sent just
    // after start-up would spend its deadline waiting for the engine to load (over 2 s on a busy
    // machine), and stopping it would restart the worker. One trivial task per worker, without a
    // deadline (an empty body: INVALID_REQUEST at once), loads them all before any real task goes.
    const warmUps = Array.from({ length: options.workers }, () => this.#pool.run(emptyTask()).catch(() => undefined));
    this.#loaded = Promise.all(warmUps).then(() => {
      this.#isLoaded = true;
    });
  }

  /** Tasks waiting for a free worker. */
  get queueDepth(): number {
    return Math.max(0, this.#pending - this.workers);
  }

  /** Tasks submitted and not yet settled (running or waiting). */
  get pending(): number {
    return this.#pending;
  }

  get activeTasks(): number {
    return Math.min(this.#pending, this.workers);
  }

  get threads(): number {
    return this.#pool.threads.length;
  }

  /** True when a new task would wait behind QUEUE_MAX others: answer SERVICE_UNAVAILABLE instead. */
  get isFull(): boolean {
    return this.#pending >= this.workers + this.queueMax;
  }

  /**
   * null when the queue is at QUEUE_MAX: the caller answers SERVICE_UNAVAILABLE without waiting.
   * Counted here rather than read from pool.queueSize, which lags dispatch and cannot express
   * QUEUE_MAX=0 ("no waiting at all"). The promise never rejects.
   */
  submit(task: WorkerTask): Promise<PoolAnswer> | null {
    if (this.isFull) return null;
    if (this.#closing) return Promise.resolve(SHUTTING_DOWN);
    this.#pending++;
    // The deadline starts when the task is queued, but not before the workers have loaded.
    const run = this.#isLoaded ? this.#run(task) : this.#loaded.then(() => this.#run(task));
    return run.then(undefined, this.#toError).finally(this.#settle);
  }

  #run(task: WorkerTask): Promise<RepairTaskResult> {
    return this.#pool.run(task, { transferList: [task.body], signal: AbortSignal.timeout(this.#timeoutMs) });
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#pool.destroy();
  }
}

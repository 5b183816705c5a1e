// The Piscina pool that runs large repairs. It answers at once when full, gives each task a
// deadline, turns a dead or stopped worker into INTERNAL_ERROR (docs/design.md "Worker pool"), and holds the
// waiting tasks in its own queue rather than Piscina's: a task goes to Piscina only when a worker
// is free, so a task whose client has gone can be dropped before it costs a worker anything
// (aborting a running task would kill its worker: docs/design.md "Worker pool"), and the queue depth is exact.
import { Piscina } from 'piscina';
import { makeError } from '../contracts/error-codes.js';
import type { RepairError, Warning } from '../../engine/types.js';
import type { BatchEndpoint, RepairTaskResult, RepairTaskSettings } from './repair-task.js';

export interface WorkerTask {
  endpoint: BatchEndpoint;
  /** Transferred to the worker: the caller must not touch it after submit(). */
  body: ArrayBuffer;
  warnings: readonly Warning[] | null;
  /**
   * The body is a schema's JSON text, to compile only (a streaming start's schema, so a schema that
   * overruns costs the caller a pool worker, not a streaming worker and its sessions: pool-schema-compiler.ts).
   */
  compileOnly?: boolean;
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

/** One submitted task: the caller keeps it to cancel the task while it waits. */
export interface PoolTicket {
  readonly answer: Promise<PoolAnswer>;
  /** The client has gone: drop the task if it is still waiting (a running one finishes). */
  cancel(): void;
}

const SHUTTING_DOWN = makeError('SERVICE_UNAVAILABLE', 'The server is shutting down and no longer runs repairs.', {
  suggestion: 'Retry on another instance, or in a moment once it has restarted.',
});
const CANCELLED = makeError('INTERNAL_ERROR', 'The client went away before this repair started; it was not run.');

function emptyTask(): WorkerTask {
  return { endpoint: 'repair', body: new ArrayBuffer(0), warnings: null };
}

export function isPoolError(answer: PoolAnswer): answer is RepairError {
  return (answer as RepairError).code !== undefined;
}

class Ticket implements PoolTicket {
  readonly answer: Promise<PoolAnswer>;
  settle!: (answer: PoolAnswer) => void;
  /** performance.now() when the deadline passes (it counts time spent waiting). */
  deadline: number;
  /** Waiting in the queue (not yet given to a worker, not settled). */
  waiting = true;

  constructor(readonly pool: RepairPool, readonly task: WorkerTask, timeoutMs: number) {
    this.deadline = performance.now() + timeoutMs;
    this.answer = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  cancel(): void {
    this.pool.cancel(this);
  }
}

export class RepairPool {
  readonly workers: number;
  readonly queueMax: number;
  readonly #pool: Piscina<WorkerTask, RepairTaskResult>;
  readonly #timeoutMs: number;
  readonly #timeoutError: RepairError;
  /** FIFO of waiting tickets; cancelled ones stay until they reach the head (counted out of #waiting). */
  readonly #queue: Ticket[] = [];
  #head = 0;
  #waiting = 0;
  #running = 0;
  #closing = false;
  #cancelled = 0;
  /** One timer for the oldest waiting task's deadline, armed only while tasks wait. */
  #timer: NodeJS.Timeout | null = null;
  readonly #onDeadline = (): void => {
    this.#timer = null;
    this.#expireWaiting();
    this.#armTimer();
  };
  /** Every first worker has loaded the engine (see the constructor); until then tasks wait for it. */
  #isLoaded = false;

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
      // Tasks reach Piscina only when a worker is free (our queue holds the rest).
      maxQueue: Infinity,
      workerData: { settings: options.settings, testHooks: options.testHooks },
    });
    // Without a listener, an error outside a task (a worker failing to start) kills the process.
    this.#pool.on('error', options.onPoolError);
    // Piscina counts its first workers ready before they have loaded anything, so a task sent just
    // after start-up would spend its deadline waiting for the engine to load (over 2 s on a busy
    // machine), and stopping it would restart the worker. One trivial task per worker, without a
    // deadline (an empty body: INVALID_REQUEST at once), loads them all; real tasks wait in the
    // queue meanwhile, and their deadlines start once the workers are ready.
    this.#running = options.workers;
    const warmUps = Array.from({ length: options.workers }, () => this.#pool.run(emptyTask()).catch(() => undefined));
    void Promise.all(warmUps).then(() => {
      this.#isLoaded = true;
      this.#running = 0;
      this.#restartDeadlines();
      this.#drainQueue();
      this.#armTimer();
    });
  }

  /** Tasks waiting for a free worker. */
  get queueDepth(): number {
    return this.#waiting;
  }

  /** Tasks submitted and not yet settled (running or waiting). */
  get pending(): number {
    return this.#waiting + (this.#isLoaded ? this.#running : 0);
  }

  get activeTasks(): number {
    return this.#isLoaded ? this.#running : 0;
  }

  /** Waiting tasks dropped because their client went away (since start). */
  get cancelledTasks(): number {
    return this.#cancelled;
  }

  get threads(): number {
    return this.#pool.threads.length;
  }

  /** True when a new task would wait behind QUEUE_MAX others: answer SERVICE_UNAVAILABLE instead. */
  get isFull(): boolean {
    return this.pending >= this.workers + this.queueMax;
  }

  /**
   * null when the queue is at QUEUE_MAX: the caller answers SERVICE_UNAVAILABLE without waiting.
   * The ticket's answer never rejects.
   */
  submit(task: WorkerTask): PoolTicket | null {
    if (this.isFull) return null;
    const ticket = new Ticket(this, task, this.#timeoutMs);
    if (this.#closing) {
      ticket.waiting = false;
      ticket.settle(SHUTTING_DOWN);
      return ticket;
    }
    this.#queue.push(ticket);
    this.#waiting++;
    this.#drainQueue();
    if (ticket.waiting) this.#armTimer();
    return ticket;
  }

  /** The client has gone: a task still waiting is dropped (a running one finishes; stopping it would kill its worker). */
  cancel(ticket: PoolTicket): void {
    const t = ticket as Ticket;
    if (!t.waiting) return;
    t.waiting = false;
    this.#waiting--;
    this.#cancelled++;
    t.settle(CANCELLED);
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    for (let k = this.#head; k < this.#queue.length; k++) {
      const t = this.#queue[k]!;
      if (!t.waiting) continue;
      t.waiting = false;
      this.#waiting--;
      t.settle(SHUTTING_DOWN);
    }
    this.#queue.length = 0;
    this.#head = 0;
    await this.#pool.destroy();
  }

  /** Gives waiting tasks to free workers, oldest first. */
  #drainQueue(): void {
    while (this.#running < this.workers && this.#head < this.#queue.length) {
      const t = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as unknown as Ticket; // let it be collected
      if (!t.waiting) continue; // cancelled or expired while waiting
      t.waiting = false;
      this.#waiting--;
      const left = t.deadline - performance.now();
      if (left <= 0) {
        t.settle(this.#timeoutError);
        continue;
      }
      this.#running++;
      this.#pool.run(t.task, { transferList: [t.task.body], signal: AbortSignal.timeout(Math.ceil(left)) })
        .then((result) => this.#finished(t, result), (error: unknown) => this.#finished(t, this.#toError(error)));
    }
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #finished(t: Ticket, answer: PoolAnswer): void {
    this.#running--;
    t.settle(answer);
    if (!this.#closing) this.#drainQueue();
  }

  #toError(error: unknown): RepairError {
    // Piscina rejects with AbortError both when our deadline fires (its cause is the signal's
    // TimeoutError) and when a task meets a closing pool: only the first is a timeout.
    const failure = error as (Error & { cause?: { name?: string } }) | undefined;
    if (failure?.name === 'AbortError' && failure.cause?.name === 'TimeoutError') return this.#timeoutError;
    if (this.#closing) return SHUTTING_DOWN;
    return makeError('INTERNAL_ERROR', 'The worker running this repair stopped unexpectedly; it has been replaced.');
  }

  /** Answers the waiting tasks whose deadline has passed (the queue is FIFO: they are at its head). */
  #expireWaiting(): void {
    const now = performance.now();
    for (let k = this.#head; k < this.#queue.length; k++) {
      const t = this.#queue[k]!;
      if (!t.waiting) continue;
      if (t.deadline > now) break;
      t.waiting = false;
      this.#waiting--;
      t.settle(this.#timeoutError);
    }
  }

  #armTimer(): void {
    if (this.#timer !== null || this.#waiting === 0 || !this.#isLoaded || this.#closing) return;
    for (let k = this.#head; k < this.#queue.length; k++) {
      const t = this.#queue[k]!;
      if (!t.waiting) continue;
      this.#timer = setTimeout(this.#onDeadline, Math.max(1, Math.ceil(t.deadline - performance.now())));
      this.#timer.unref();
      return;
    }
  }

  /** Tasks that waited for the workers to load start their deadline now. */
  #restartDeadlines(): void {
    const now = performance.now();
    for (let k = this.#head; k < this.#queue.length; k++) {
      this.#queue[k]!.deadline = now + this.#timeoutMs;
    }
  }
}

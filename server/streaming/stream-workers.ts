// The streaming worker threads. Each session is pinned to one of them for its whole life: a slot
// owns one Worker, addressed through its own channel (postMessage / parentPort), and every call
// carries an id its reply echoes. Piscina is not used here: it has no affinity, and a session inside
// the batch pool would queue behind batch tasks and die with every task the pool aborts
// (docs/streaming.md "Pinning" has the measurements).
//
// A worker that dies takes its sessions: every call waiting on it is answered (never left hanging),
// the owner is told (the sessions then answer SESSION_NOT_FOUND), and the slot's generation moves on
// so nothing addressed to the dead worker can reach its replacement.
import { Worker } from 'node:worker_threads';
import { READY, type StreamWorkerData, type ToWorker, type WorkerReply } from './stream-protocol.js';

/** One request waiting for its worker's reply. */
export interface WorkerCall {
  /** performance.now() when sent: the deadline watchdog reads it. */
  sentAt: number;
  /** Exactly once: the reply, or null when the worker died first (`overran`: it was stopped for this call). */
  settle(reply: WorkerReply | null, overran: boolean): void;
}

type CallMessage = Exclude<ToWorker, { op: 3 }>;

class Slot {
  worker: Worker | null = null;
  generation = 0;
  /** Loaded and ready (its READY message): a worker that dies before that is not respawned in a loop. */
  online = false;
  /** performance.now() when the current worker became ready: deadlines do not count its boot. */
  onlineAt = 0;
  sessions = 0;
  /** UTF-8 bytes its sessions buffer together: placement weighs them as well as the count. */
  bytes = 0;
  /** performance.now() of its last reply: a worker takes its calls in order, so the oldest call started then. */
  lastReplyAt = 0;
  /** Insertion order is send order, so the first entry is the oldest call. */
  readonly calls = new Map<number, WorkerCall>();
  overrunCall = -1;

  constructor(readonly index: number) {}
}

export interface StreamWorkersOptions {
  threads: number;
  callTimeoutMs: number;
  workerData: StreamWorkerData;
  /** A worker died (crash, exit, or stopped by the watchdog): end the sessions of that generation. */
  /** `closing`: the workers are being stopped on purpose (shutdown), not lost. */
  onWorkerLost: (slot: number, generation: number, closing: boolean) => void;
  onError: (error: unknown) => void;
}

const WORKER_URL = new URL('./stream-worker.js', import.meta.url);

/** What one open session weighs in placement, in buffered bytes (an empty one still takes calls). */
const SESSION_WEIGHT = 64 * 1024;

function loadOf(slot: Slot): number {
  return slot.bytes + slot.sessions * SESSION_WEIGHT;
}

export class StreamWorkers {
  readonly #slots: Slot[];
  readonly #options: StreamWorkersOptions;
  #nextCallId = 0;
  #closing = false;
  restarts = 0;

  constructor(options: StreamWorkersOptions) {
    this.#options = options;
    this.#slots = Array.from({ length: options.threads }, (_, i) => new Slot(i));
  }

  /** Starts every worker now, so the first session does not wait for a thread to boot (0.1-1 s here). */
  startAll(): void {
    for (const slot of this.#slots) this.#ensure(slot);
  }

  /** Workers running now. */
  get alive(): number {
    let n = 0;
    for (const slot of this.#slots) if (slot.worker !== null) n++;
    return n;
  }

  /**
   * The least-loaded slot takes the new session (ties: the lowest index); its worker restarts if
   * needed. Load is the bytes its sessions buffer plus SESSION_WEIGHT per session, so one worker
   * holding a few large sessions is not also handed every new one (their finalizes queue there).
   */
  assign(): { slot: number; generation: number } {
    let best = this.#slots[0]!;
    for (const slot of this.#slots) if (loadOf(slot) < loadOf(best)) best = slot;
    this.#ensure(best);
    best.sessions++;
    return { slot: best.index, generation: best.generation };
  }

  /** A session of this slot ended, holding `bytes`; a generation already gone was counted out when its worker died. */
  release(slot: number, generation: number, bytes: number): void {
    const s = this.#slots[slot]!;
    if (s.generation !== generation || s.sessions === 0) return;
    s.sessions--;
    s.bytes = Math.max(0, s.bytes - bytes);
  }

  /** A session of this slot grew by `bytes`. */
  grew(slot: number, generation: number, bytes: number): void {
    const s = this.#slots[slot]!;
    if (s.generation === generation) s.bytes += bytes;
  }

  /** Whether `generation` of `slot` is the worker running now (else its sessions are gone). */
  isCurrent(slot: number, generation: number): boolean {
    const s = this.#slots[slot]!;
    return s.generation === generation && s.worker !== null;
  }

  call(slot: number, message: CallMessage, call: WorkerCall): void {
    const s = this.#slots[slot]!;
    message.id = ++this.#nextCallId;
    call.sentAt = performance.now();
    s.calls.set(message.id, call);
    s.worker!.postMessage(message);
  }

  /** Fire and forget (CLOSE). Nothing is sent to a generation that is gone. */
  post(slot: number, generation: number, message: ToWorker): void {
    const s = this.#slots[slot]!;
    if (s.generation === generation && s.worker !== null) s.worker.postMessage(message);
  }

  /**
   * Stops a worker whose current call has run past the deadline (the watchdog's tick). A worker
   * takes its calls one at a time in order, so its current call is the oldest one and started at
   * the later of its sending and the worker's last reply: time spent queued behind other calls is
   * a busy worker, not a hung one, and does not count. One call's work is bounded by its size
   * (MAX_PAYLOAD_BYTES); only a pathological one can get here, and stopping the thread is the only
   * way to interrupt it.
   */
  checkDeadlines(now: number): void {
    for (const slot of this.#slots) {
      if (slot.worker === null || !slot.online || slot.overrunCall !== -1) continue;
      for (const [id, call] of slot.calls) {
        if (now - Math.max(call.sentAt, slot.lastReplyAt, slot.onlineAt) > this.#options.callTimeoutMs) {
          slot.overrunCall = id;
          void slot.worker.terminate();
        }
        break;
      }
    }
  }

  /** Shutdown: stops every worker (their sessions end with them). */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#slots.map((slot) => slot.worker?.terminate()));
  }

  #ensure(slot: Slot): void {
    if (slot.worker !== null) return;
    const worker = new Worker(WORKER_URL, { workerData: this.#options.workerData });
    // An idle streaming worker never keeps the process alive; shutdown stops it.
    worker.unref();
    slot.worker = worker;
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    // Without a listener an uncaught exception in the worker would be rethrown here.
    worker.on('error', this.#options.onError);
    worker.once('exit', () => this.#onExit(slot, worker));
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    slot.lastReplyAt = performance.now();
    if (reply.id === READY) {
      slot.online = true;
      slot.onlineAt = performance.now();
      return;
    }
    const call = slot.calls.get(reply.id);
    if (call === undefined) return;
    slot.calls.delete(reply.id);
    call.settle(reply, false);
  }

  #onExit(slot: Slot, worker: Worker): void {
    if (slot.worker !== worker) return;
    const lost = slot.generation;
    const overrun = slot.overrunCall;
    const calls = [...slot.calls];
    slot.calls.clear();
    slot.worker = null;
    slot.generation++;
    slot.sessions = 0;
    slot.bytes = 0;
    slot.overrunCall = -1;
    const wasOnline = slot.online;
    slot.online = false;
    // Sessions first, so the calls answered next find them already ended as lost.
    this.#options.onWorkerLost(slot.index, lost, this.#closing);
    for (const [id, call] of calls) call.settle(null, id === overrun);
    if (this.#closing) return;
    this.restarts++;
    // Replace a worker that had been running; one that died starting is retried on next use.
    if (wasOnline) this.#ensure(slot);
  }
}

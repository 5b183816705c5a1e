// Decides, on the HTTP thread, whether a small request that carries a schema may be repaired there
// instead of in the pool. Validating a small value against a compiled schema costs microseconds; the
// pool hop costs the HTTP thread more than that, and 50 concurrent schema requests in the pool overflow
// the default queue (docs/capacity.md). Compiling is the risk: a 13 KB schema with patterns took
// 124 ms here, and the HTTP thread has no deadline. So the HTTP thread compiles a schema only when
// a client repeats it and a worker has already compiled it, and only within a budget of compile
// time per second; unique schemas (one per request, as a hostile client would send), expensive
// ones and those past the budget go to the pool, where TASK_TIMEOUT_MS can stop them.
//
// A worker's measurement is wall time, so on a busy machine it reads several times the compile's
// cost (a 6 ms compile read over 20 ms with the load at 8 on 2 cores). A verdict from one such
// reading would send a repeated small schema to the pool for good, and 50 clients repeating it
// then overflow the queue. So each pool answer for the schema is a reading (each worker times its
// own first compile; the lowest reading stands), and a small schema (at most
// INLINE_SMALL_SCHEMA_TEXT characters, within the complexity budget of schema-complexity.ts) is
// allowed up to LOADED_COMPILE_MAX_MS of reading: what its cost looks like under load. It is
// charged against the budget at the cheap estimate and then at what it really cost here.
import { compiledSchema, isSchemaTextCompiled } from '../../engine/schema/index.js';

/**
 * Worker-measured compile time up to which the HTTP thread compiles the schema itself. Measured
 * warm: 1.5–3 ms for a small schema, 6 ms for the 791-character schema of the bench's 1 KB reply.
 */
export const INLINE_SCHEMA_COMPILE_MAX_MS = 20;
/** Schema text (characters) small enough that its compile is cheap by its size: the 1 KB reply's schema is 791. */
export const INLINE_SMALL_SCHEMA_TEXT = 2048;
/** Worker reading up to which a small schema still compiles here: ten times the cheap bound (a busy machine). */
export const LOADED_COMPILE_MAX_MS = 10 * INLINE_SCHEMA_COMPILE_MAX_MS;
/**
 * HTTP-thread compile time allowed per second (at most 5% of the thread, whatever clients send);
 * each compile is charged the larger of its worker-measured and its actual cost.
 */
export const INLINE_COMPILE_BUDGET_MS = 50;
const BUDGET_WINDOW_MS = 1000;
/** Schemas whose worker compile cost is remembered; the oldest is forgotten first. */
const MAX_REMEMBERED = 512;
/** Requests that may wait for one schema's first pool compile; more go to the pool themselves. */
const MAX_WAITING = 256;
/** Longer schema texts are not remembered (at most 512 × 16 Ki characters held); they compile slowly anyway. */
const MAX_REMEMBERED_TEXT = 16 * 1024;

export class InlineSchemaGate {
  /** Schema text -> what compiling it cost a worker (ms). */
  readonly #costs = new Map<string, number>();
  /** Text of the schema the last admits() call refused, for the route to pair with the pool's answer. */
  #refused: string | null = null;
  /** Schema text -> its first pool answer, while that is in flight, and how many requests wait for it. */
  readonly #pending = new Map<string, { answered: Promise<unknown>; waiting: number }>();
  #windowStart = -Infinity;
  #spentMs = 0;

  constructor(private readonly now: () => number = performance.now.bind(performance)) {}

  /** True when a repair with `schema` will find it compiled on this thread (compiling it now if cheap). */
  admits(schema: unknown): boolean {
    this.#refused = null;
    let text: string;
    try {
      text = JSON.stringify(schema);
    } catch {
      return false; // nested beyond JSON.stringify's reach: the pool's answer explains it
    }
    if (isSchemaTextCompiled(text, schema)) return true; // and the repair finds it by the object: one stringify per request
    const cost = this.#costs.get(text);
    const estimate = cost === undefined ? undefined : estimateOf(cost, text.length);
    if (estimate !== undefined && this.#withinBudget(estimate)) {
      this.#costs.delete(text);
      const started = this.now();
      try {
        compiledSchema(schema);
      } catch {
        return false;
      } finally {
        this.#spentMs += Math.max(estimate, this.now() - started);
      }
      return isSchemaTextCompiled(text);
    }
    if (text.length <= MAX_REMEMBERED_TEXT) this.#refused = text;
    return false;
  }

  #withinBudget(cost: number): boolean {
    const now = this.now();
    if (now - this.#windowStart >= BUDGET_WINDOW_MS) {
      this.#windowStart = now;
      this.#spentMs = 0;
    }
    return this.#spentMs + cost <= INLINE_COMPILE_BUDGET_MS;
  }

  /** The text of the schema admits() just refused (null if it admitted), cleared by reading. */
  takeRefused(): string | null {
    const text = this.#refused;
    this.#refused = null;
    return text;
  }

  /**
   * The first request with `schemaText` went to the pool (`answered` settles with its answer): the
   * same schema arriving meanwhile waits for that one compile's reading (waitFor) instead of
   * sending 50 copies to the pool's queue at once.
   */
  compiling(schemaText: string, answered: Promise<unknown>): void {
    if (this.#pending.has(schemaText) || this.#pending.size >= MAX_REMEMBERED) return;
    const settled = answered.then(() => {
      this.#pending.delete(schemaText);
    });
    this.#pending.set(schemaText, { answered: settled, waiting: 0 });
  }

  /** Resolves once the first compile of `schemaText` has been read (learn() ran), or null: ask the pool. */
  waitFor(schemaText: string): Promise<unknown> | null {
    const pending = this.#pending.get(schemaText);
    if (pending === undefined || pending.waiting >= MAX_WAITING) return null;
    pending.waiting++;
    return pending.answered;
  }

  /** A worker compiled (or had compiled) `schemaText` in `compileMs`; the lowest reading stands. */
  learn(schemaText: string, compileMs: number): void {
    const known = this.#costs.get(schemaText);
    if (known === undefined && this.#costs.size >= MAX_REMEMBERED) {
      this.#costs.delete(this.#costs.keys().next().value!);
    }
    this.#costs.set(schemaText, known === undefined ? compileMs : Math.min(known, compileMs));
  }
}

/**
 * What compiling a schema a worker read at `cost` ms should cost here (ms), or undefined when it
 * must stay in the pool: cheap readings as they are; a small schema read as dear is taken for a
 * cheap one measured on a busy machine, up to LOADED_COMPILE_MAX_MS.
 */
function estimateOf(cost: number, textLength: number): number | undefined {
  if (cost <= INLINE_SCHEMA_COMPILE_MAX_MS) return cost;
  if (textLength <= INLINE_SMALL_SCHEMA_TEXT && cost <= LOADED_COMPILE_MAX_MS) return INLINE_SCHEMA_COMPILE_MAX_MS;
  return undefined;
}

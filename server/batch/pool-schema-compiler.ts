// Checks a streaming start's schema before any streaming worker sees it. A streaming worker holds
// every session pinned to it, and the only way to stop a call that overruns there is to stop the
// thread, sessions and all; so a schema it has not seen is first compiled here, in the batch pool,
// where an overrun (TASK_TIMEOUT_MS) costs the caller one pool worker and nobody else anything. A
// schema that compiled within `maxCompileMs` is remembered (by a digest of its text, so memory
// stays flat) and later starts with it skip the pool hop; the session's worker then compiles it
// from its own cache, at the cost just measured. The complexity budget (schema-complexity.ts)
// refuses the worst up front, without a pool hop.
import { createHash } from 'node:crypto';
import { makeError } from '../contracts/error-codes.js';
import { schemaComplexityError } from '../contracts/schema-complexity.js';
import type { RepairError } from '../../engine/types.js';
import { isPoolError, type RepairPool } from './repair-pool.js';

const POOL_FULL = makeError('SERVICE_UNAVAILABLE', 'The server is at maximum capacity: the repair queue is full, and a new schema is compiled there first.', {
  suggestion: 'Retry with exponential backoff (for example 100 ms, 200 ms, 400 ms, with jitter).',
});
/** Schemas known to compile in time; the oldest is forgotten first. */
const MAX_KNOWN = 1024;

/**
 * What a streaming session's schema may cost to compile: a tenth of the streaming worker's call
 * deadline (TASK_TIMEOUT_MS; 500 ms by default), so compiling it again there, under load, stays far
 * from the deadline; other sessions on that worker wait at most that long, once per schema.
 */
export function streamSchemaCompileMs(taskTimeoutMs: number): number {
  return Math.max(10, Math.floor(taskTimeoutMs / 10));
}

export class PoolSchemaCompiler {
  readonly #known = new Set<string>();

  /** `maxCompileMs`: what a schema may cost to compile in a streaming worker's call. */
  constructor(private readonly pool: RepairPool, readonly maxCompileMs: number) {}

  /** null when a session may open with `schema`; else why not. */
  check(schema: unknown): RepairError | null | Promise<RepairError | null> {
    const tooComplex = schemaComplexityError(schema);
    if (tooComplex !== null) return tooComplex;
    let text: string;
    try {
      text = JSON.stringify(schema);
    } catch {
      return null; // not JSON-serializable: the worker's compile explains it (it never came from a request body)
    }
    const digest = createHash('sha256').update(text).digest('base64');
    if (this.#known.has(digest)) return null;
    if (this.pool.isFull) return POOL_FULL;
    const body = Buffer.from(text, 'utf8');
    const ticket = this.pool.submit({ endpoint: 'repair', body: body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer, warnings: null, compileOnly: true });
    if (ticket === null) return POOL_FULL;
    return ticket.answer.then((answer) => {
      if (isPoolError(answer)) {
        if (answer.code === 'SERVICE_UNAVAILABLE') return answer;
        return makeError('SCHEMA_TOO_COMPLEX', `Compiling the schema did not finish in time (${answer.message}); a streaming session's schema must compile within ${this.maxCompileMs} ms.`);
      }
      if (answer.schemaError !== undefined) return answer.schemaError;
      const ms = answer.schemaCompileMs ?? 0;
      if (ms > this.maxCompileMs) {
        return makeError('SCHEMA_TOO_COMPLEX', `Compiling the schema took ${Math.round(ms)} ms; a streaming session's schema must compile within ${this.maxCompileMs} ms.`);
      }
      if (this.#known.size >= MAX_KNOWN) this.#known.delete(this.#known.values().next().value!);
      this.#known.add(digest);
      return null;
    });
  }
}

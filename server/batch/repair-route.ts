// POST /v1/repair and POST /v1/demo/repair. Small bodies are repaired inline on the uWS thread (a
// pool hop costs ~100 µs of latency and 40–50 µs of CPU, several times a small repair) unless they
// carry a schema the HTTP thread has not compiled (inline-schema-gate.ts); larger ones, and those,
// go to the pool with their body transferred.
import { makeError } from '../contracts/error-codes.js';
import type { RepairError } from '../../engine/types.js';
import { sampleOf } from '../contracts/contract-sniffer.js';
import type { HttpContext } from '../http/http-context.js';
import { errorAnswer, type JsonPostRoute, type PostRequest } from '../http/json-post.js';
import type { RouteAnswer } from '../http/route-answer.js';
import { isPoolError, type PoolAnswer, type RepairPool } from './repair-pool.js';
import { InlineSchemaGate } from './inline-schema-gate.js';
import { NEEDS_POOL, runRepairTask, type BatchEndpoint, type RepairTaskSettings } from './repair-task.js';

const AT_CAPACITY = makeError('SERVICE_UNAVAILABLE', 'The server is at maximum capacity: the repair queue is full.', {
  suggestion: 'Retry with exponential backoff (for example 100 ms, 200 ms, 400 ms, with jitter).',
});

export function demoMessageFor(limitPerHour: number): string {
  return `This is the jsonmend demo: ${limitPerHour} repairs per hour per IP address, no key needed. ` +
    'Sign up for a free API key (no payment card) for 1,000 repairs a month, higher rate limits and streaming repair.';
}

export class RepairRoute implements JsonPostRoute {
  readonly name: string;
  readonly requiresKey: boolean;
  readonly demoMessage: string | null;

  constructor(
    readonly endpoint: BatchEndpoint,
    private readonly ctx: HttpContext,
    private readonly pool: RepairPool,
    private readonly settings: RepairTaskSettings,
    private readonly schemaGate: InlineSchemaGate,
  ) {
    this.name = endpoint;
    this.requiresKey = endpoint === 'repair';
    this.demoMessage = endpoint === 'demo' ? settings.demoMessage : null;
  }

  /**
   * A body that Content-Length already sends to the pool (over INLINE_MAX_BYTES) meets a full pool:
   * refused once its first 4 KiB are in, before the rest is buffered (docs/capacity.md "Overload").
   */
  refusalBeforeBody(contentLength: number): RepairError | null {
    return contentLength > this.ctx.config.inlineMaxBytes && this.pool.isFull ? AT_CAPACITY : null;
  }

  dispatch(request: PostRequest, body: Uint8Array, owned: boolean, waited = false): RouteAnswer | Promise<RouteAnswer> {
    let refusedSchema: string | null = null;
    if (body.byteLength <= this.ctx.config.inlineMaxBytes) {
      const result = runRepairTask({ endpoint: this.endpoint, body, warnings: request.warnings, schemaGate: this.schemaGate }, this.settings);
      if (result !== NEEDS_POOL) return { status: result.status, body: result.body, outcome: result.outcome, execution: 'inline' };
      refusedSchema = this.schemaGate.takeRefused();
      // The same schema's first compile is in the pool: wait for its reading, then try inline again
      // (once). The body is a view valid only during this call: a copy (at most INLINE_MAX_BYTES) waits.
      const first = refusedSchema === null || waited ? null : this.schemaGate.waitFor(refusedSchema);
      if (first !== null) {
        const copy = body.slice();
        return first.then(() => this.dispatch(request, copy, true, true));
      }
    }
    if (this.pool.isFull) return errorAnswer(this.ctx, this, AT_CAPACITY, sampleOf(body, false), 0);
    // The body is transferred to the worker; keep what shaping a crash or timeout answer needs.
    const sample = this.ctx.config.contract === 'auto' ? sampleOf(body, true) : null;
    const whole = owned && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const buffer = (whole ? body.buffer : body.slice().buffer) as ArrayBuffer;
    const ticket = this.pool.submit({ endpoint: this.endpoint, body: buffer, warnings: request.warnings })!;
    request.waitingOn = ticket; // a client that goes away drops its task if it has not started
    if (refusedSchema !== null && !waited) this.schemaGate.compiling(refusedSchema, ticket.answer);
    return ticket.answer.then((answer: PoolAnswer): RouteAnswer => {
      if (!isPoolError(answer)) {
        if (refusedSchema !== null && answer.schemaCompileMs !== undefined) this.schemaGate.learn(refusedSchema, answer.schemaCompileMs);
        return { status: answer.status, body: answer.body, outcome: answer.outcome, execution: 'pool' };
      }
      const failed = errorAnswer(this.ctx, this, answer, sample, 0);
      failed.outcome.fault = answer.message; // logged: a crashed or timed-out worker
      failed.execution = 'pool';
      return failed;
    });
  }
}

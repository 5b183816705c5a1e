// The client: batch repair, the keyless demo, streaming sessions and repairStream, over fetch.
// Options are checked once, here. See docs/client.md.
import type { Mode, PreviewMode, RepairResponse, StreamState } from '../engine/types.js';
import type { RetryPolicy } from './retry.js';
import { feed, JsonmendStream, type StreamRestart, type StreamStart } from './stream.js';
import { call, type TransportConfig } from './transport.js';

export interface JsonmendOptions {
  /** `sk_live_…`; needed by everything but demoRepair. */
  apiKey?: string;
  /** Default `http://localhost:8080`. `''` sends paths relative to the page (same-origin browser use). */
  baseUrl?: string;
  /** Per attempt, default 30,000 ms. */
  timeoutMs?: number;
  /** Retries of a recoverable failure after the first attempt, default 3; also repairStream's restarts per chunk. */
  maxRetries?: number;
  /** The first backoff's upper bound, default 250 ms (doubling per retry, full jitter). */
  retryBaseMs?: number;
  /** The largest backoff, default 10,000 ms. */
  retryMaxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60,000 ms. */
  maxRetryWaitMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

export interface RepairOptions {
  /** A JSON Schema (draft-07 or 2020-12); null or absent: none. */
  schema?: unknown;
  /** `strict` (the default) removes members the schema does not declare; `lenient` keeps them. */
  mode?: Mode;
  signal?: AbortSignal;
}

export interface StartStreamOptions extends RepairOptions {
  /** Have every state carry `buffered` (the whole text so far). Default false: the bytes grow with the buffer. */
  echoBuffer?: boolean;
  /** How states show the value so far: `complete` (the service's default), `progressive` or `patch` (docs/streaming.md). */
  preview?: PreviewMode;
}

export interface RepairStreamOptions extends RepairOptions {
  /** Called with the state after each chunk. */
  onState?: (state: StreamState) => void;
  /**
   * Called with the answer so far each time it grows (`settled`: JSON Pointers of the values that
   * became final), and last with the repaired value. The session sends patch previews, applied here.
   */
  onPreview?: (value: unknown, settled: string[]) => void;
  /** Called when a lost session was replaced by a new one (it expired, or its server went away). */
  onRestart?: (restart: StreamRestart) => void;
}

/** The demo's answer: the repair's envelope plus `demo: true` and an invitation to sign up. */
export type DemoRepairResponse = RepairResponse & { demo?: boolean; message?: string };

function nonNegative(name: string, value: number | undefined, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`Jsonmend: ${name} must be a non-negative ${integer ? 'integer' : 'number'}; got ${String(value)}`);
  }
  return value;
}

function repairBody(rawOutput: string, options: RepairOptions): Record<string, unknown> {
  if (typeof rawOutput !== 'string') throw new TypeError('Jsonmend: the text to repair must be a string');
  const body: Record<string, unknown> = { raw_output: rawOutput };
  if (options.schema !== undefined) body['schema'] = options.schema;
  if (options.mode !== undefined) body['mode'] = options.mode;
  return body;
}

export class Jsonmend {
  readonly #config: TransportConfig;

  constructor(options: JsonmendOptions = {}) {
    const baseUrl = options.baseUrl ?? 'http://localhost:8080';
    if (typeof baseUrl !== 'string') throw new TypeError('Jsonmend: baseUrl must be a string');
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === '')) {
      throw new TypeError('Jsonmend: apiKey must be a non-empty string');
    }
    const timeoutMs = nonNegative('timeoutMs', options.timeoutMs, 30_000);
    if (timeoutMs === 0) throw new RangeError('Jsonmend: timeoutMs must be positive');
    const retry: RetryPolicy = {
      maxRetries: nonNegative('maxRetries', options.maxRetries, 3, true),
      baseDelayMs: nonNegative('retryBaseMs', options.retryBaseMs, 250),
      maxDelayMs: nonNegative('retryMaxDelayMs', options.retryMaxDelayMs, 10_000),
      maxWaitMs: nonNegative('maxRetryWaitMs', options.maxRetryWaitMs, 60_000),
    };
    const fetchFn = options.fetch ?? (((input, init) => globalThis.fetch(input, init)) as typeof fetch);
    if (typeof fetchFn !== 'function') throw new TypeError('Jsonmend: fetch must be a function');
    this.#config = { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: options.apiKey, timeoutMs, fetch: fetchFn, retry };
  }

  /** POST /v1/repair. A repair that found no JSON or missed the schema resolves with `success: false`. */
  repair(rawOutput: string, options: RepairOptions = {}): Promise<RepairResponse> {
    return call(this.#config, '/v1/repair', repairBody(rawOutput, options),
      { auth: true, retryOn: 'recoverable', resultOnFailure: true, signal: options.signal });
  }

  /** POST /v1/demo/repair: no key, limited per client IP. */
  demoRepair(rawOutput: string, options: RepairOptions = {}): Promise<DemoRepairResponse> {
    return call(this.#config, '/v1/demo/repair', repairBody(rawOutput, options),
      { auth: false, retryOn: 'recoverable', resultOnFailure: true, signal: options.signal });
  }

  /** Opens a streaming session; push chunks to it, then finalize. */
  async startStream(options: StartStreamOptions = {}): Promise<JsonmendStream> {
    const body: Record<string, unknown> = { echo_buffer: options.echoBuffer === true };
    if (options.schema !== undefined) body['schema'] = options.schema;
    if (options.mode !== undefined) body['mode'] = options.mode;
    if (options.preview !== undefined) body['preview'] = options.preview;
    const start = await call<StreamStart>(this.#config, '/v1/repair/stream/start', body,
      { auth: true, retryOn: 'recoverable', resultOnFailure: false, signal: options.signal });
    return new JsonmendStream(this.#config, start);
  }

  /**
   * Streams `source` through a session: each chunk is pushed as it arrives, `onState` sees every
   * state, and the result is the finalized repair — equal to a batch repair of the whole text. A
   * lost session is replaced (at most `maxRetries` times in a row) and sent the text so far.
   */
  repairStream(source: AsyncIterable<string> | Iterable<string>, options: RepairStreamOptions = {}): Promise<RepairResponse> {
    const { onState, onPreview, onRestart, signal, ...start } = options;
    if (onPreview !== undefined && typeof onPreview !== 'function') throw new TypeError('Jsonmend: onPreview must be a function');
    const preview = onPreview === undefined ? undefined : 'patch';
    return feed(source, () => this.startStream({ ...start, signal, echoBuffer: false, preview }), {
      maxRestarts: this.#config.retry.maxRetries, onState, onPreview, onRestart, signal,
    });
  }
}

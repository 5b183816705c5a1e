// The lifecycle every request with a body shares (the API's POST routes, the console's API, the
// peer route): counted in flight from its first line to its answer or its abort, answered at most
// once, nothing written after the client has gone, and its body read against its route's limit.
// uWS rules (docs/design.md "uWS rules"): onAborted is registered before the handler returns;
// onData's ArrayBuffer is copied inside the callback; nothing touches res after an abort.
import type { HttpContext } from './http-context.js';
import type { HttpResponse } from './load-uws.js';

const DIGITS = /^[0-9]{1,15}$/;

/** A Content-Length header's value, or -1 when there is none (a chunked upload) or it is no number. */
export function contentLengthOf(header: string): number {
  return DIGITS.test(header) ? Number(header) : -1;
}

export abstract class BodyRequest {
  /** The client went away: nothing is written any more. */
  protected aborted = false;
  /** Answered, or given up on an abort: the in-flight count has been given back (or is about to be). */
  protected finished = false;

  constructor(readonly res: HttpResponse, readonly ctx: HttpContext) {
    ctx.lifecycle.begin();
    res.onAborted(() => this.#abort());
  }

  /** The client went away (once): drop what is held and cancel queued work. */
  protected clientGone(): void {}

  /** The client went away before its answer: record it. The in-flight count is given back after. */
  protected recordAbort(): void {}

  /** Claims the one answer: false when the request was answered already or the client is gone. */
  protected claimAnswer(): boolean {
    if (this.aborted || this.finished) return false;
    this.finished = true;
    return true;
  }

  /** Gives back the in-flight count once the claimed answer is written and recorded. */
  protected answered(): void {
    this.ctx.lifecycle.end();
  }

  /**
   * Reads the body with `res.onData` (attach before the handler returns: uWS hands chunks only to a
   * reader attached by then). `done(body)` once it is all in; `done(null)` as soon as it passes
   * `limit`, and nothing more is kept. Preallocated when its length (at most `limit`) is known.
   * Chunks that arrive after an answer are discarded.
   */
  protected readBody(limit: number, length: number, done: (body: Buffer | null) => void): void {
    let buffer: Buffer | null = length >= 0 && length <= limit ? Buffer.allocUnsafe(length) : null;
    let chunks: Buffer[] | null = buffer === null ? [] : null;
    let received = 0;
    const room = buffer === null ? limit : length;
    this.res.onData((chunk, isLast) => {
      if (this.aborted || this.finished || (buffer === null && chunks === null)) return;
      const bytes = new Uint8Array(chunk);
      if (received + bytes.byteLength > room) {
        buffer = null;
        chunks = null;
        done(null);
        return;
      }
      if (buffer !== null) buffer.set(bytes, received);
      else chunks!.push(Buffer.from(bytes)); // a copy: uWS reuses the chunk after this callback
      received += bytes.byteLength;
      if (!isLast) return;
      const body = buffer !== null ? buffer.subarray(0, received) : Buffer.concat(chunks!, received);
      buffer = null;
      chunks = null;
      done(body);
    });
  }

  #abort(): void {
    this.aborted = true;
    this.clientGone();
    if (this.finished) return;
    this.finished = true;
    this.recordAbort();
    this.ctx.lifecycle.end();
  }
}

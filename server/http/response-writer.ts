// Writes a whole answer. Every answer carries X-Request-ID, its Content-Type and nosniff. Call it
// synchronously inside a uWS callback, or inside res.cork() after an await.
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from './load-uws.js';

export type HeaderList = readonly (readonly [string, string])[];

export const JSON_TYPE = 'application/json';
export const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Bodies of at least this many characters are paced when the caller allows it. `res.end` copies
 * whatever the socket cannot take into uWS's own buffer and marks the response done, so a client
 * that pipelines requests without reading made the server buffer answer after answer without
 * bound (measured: 40 requests for a 4.9 MB answer, RSS 98 -> 402 MB). Paced, the answer stays
 * pending until written, one answer per connection is held at most, and uWS closes a connection
 * that sends its next request meanwhile.
 */
export const PACE_FROM_CHARS = 64 * 1024;

const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  413: '413 Payload Too Large',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** `404 Not Found`: the status line of any status (the gateway passes its upstream's on). */
export function statusLine(status: number): string {
  return STATUS_LINES[status] ?? `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

/** A large body written with tryEnd as the socket drains (uWS's onWritable protocol). */
class PacedBody {
  #base = 0;

  constructor(private readonly res: HttpResponse, private readonly bytes: Buffer) {}

  start(): void {
    this.#base = this.res.getWriteOffset();
    const [ok, done] = this.res.tryEnd(this.bytes, this.bytes.byteLength);
    if (!ok && !done) this.res.onWritable(this.#resume);
  }

  // uWS calls this only while the socket is open: an aborted response is never touched again.
  readonly #resume = (offset: number): boolean => {
    return this.res.tryEnd(this.bytes.subarray(offset - this.#base), this.bytes.byteLength)[0];
  };
}

/**
 * `paced`: the caller has registered onAborted (mandatory for a response not finished
 * synchronously), so a large body may be written as the client reads it.
 */
export function writeAnswer(
  res: HttpResponse,
  status: number,
  contentType: string,
  body: string,
  requestId: string,
  headers: HeaderList | null,
  closeConnection: boolean,
  paced = false,
): void {
  // uWS writes "200 OK" itself when no status was given: one native call less on most answers.
  if (status !== 200) res.writeStatus(statusLine(status));
  res.writeHeader('X-Request-ID', requestId);
  res.writeHeader('Content-Type', contentType);
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  if (headers !== null) for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i]![0], headers[i]![1]);
  // While draining (closeConnection) no further request comes on this connection: end() is bounded.
  if (paced && !closeConnection && body.length >= PACE_FROM_CHARS) new PacedBody(res, Buffer.from(body, 'utf8')).start();
  else res.end(body, closeConnection);
}

// Writing answers for the web routes (pages, assets, the OpenAPI document, the console API). Like
// server/http/response-writer.ts, every answer carries X-Request-ID and nosniff; these routes also
// need statuses the repair contracts never use (304, 4xx) and binary bodies (gzip).
import type { HeaderList } from '../http/response-writer.js';
import type { HttpContext } from '../http/http-context.js';
import { observeNonRepair } from '../http/simple-answer.js';
import type { HttpResponse } from '../http/load-uws.js';

const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  304: '304 Not Modified',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  409: '409 Conflict',
  413: '413 Content Too Large',
  415: '415 Unsupported Media Type',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** `body` null ends without a body (304). Call synchronously in a uWS callback or inside res.cork(). */
export function writeWebAnswer(
  res: HttpResponse,
  status: number,
  headers: HeaderList,
  body: string | Uint8Array | null,
  requestId: string,
  closeConnection: boolean,
): void {
  res.writeStatus(STATUS_LINES[status] ?? `${status} Status`);
  res.writeHeader('X-Request-ID', requestId);
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i]![0], headers[i]![1]);
  // endWithoutBody(undefined, …) is not an answer to this uWS build (it aborts the process), and
  // a reported length of 0 is the only way to ask it to close: use it only while draining.
  if (body === null) {
    if (closeConnection) res.endWithoutBody(0, true);
    else res.endWithoutBody();
  } else {
    res.end(body, closeConnection);
  }
}


/** Logs and metrics see web requests like any other; `outcome` is 'ok' or a registry code. */
export function observeWeb(ctx: HttpContext, route: string, requestId: string, time: number, start: number, status: number, outcome: string): void {
  observeNonRepair(ctx, route, requestId, null, time, start, status, outcome);
}

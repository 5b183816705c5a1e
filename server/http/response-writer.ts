// Writes a whole answer. Every answer carries X-Request-ID, its Content-Type and nosniff. Call it
// synchronously inside a uWS callback, or inside res.cork() after an await.
import type { HttpResponse } from '../uws/load-uws.js';

export type HeaderList = readonly (readonly [string, string])[];

export const JSON_TYPE = 'application/json';
export const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

export function writeAnswer(
  res: HttpResponse,
  status: number,
  contentType: string,
  body: string,
  requestId: string,
  headers: HeaderList | null,
  closeConnection: boolean,
): void {
  res.writeStatus(STATUS_LINES[status] ?? String(status));
  res.writeHeader('X-Request-ID', requestId);
  res.writeHeader('Content-Type', contentType);
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  if (headers !== null) for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i]![0], headers[i]![1]);
  res.end(body, closeConnection);
}

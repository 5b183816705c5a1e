// A bare HTTP/1.1 client over a socket, for what fetch cannot do: claim a Content-Length and never
// send the body, or keep uploading while the answer arrives.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ms from the request head being written to the whole answer read. */
  elapsedMs: number;
  /** Body bytes written before the answer was complete. */
  bytesSent: number;
}

function parseAnswer(raw: string): Omit<RawAnswer, 'elapsedMs' | 'bytesSent'> | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine, ...lines] = raw.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const body = raw.slice(headEnd + 4);
  if (!(Buffer.byteLength(body) >= length)) return null;
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/**
 * Writes `head`, then calls `feed(socket)` repeatedly (each call may write a body chunk and returns
 * false when done) until the answer has arrived. Resolves with the parsed answer.
 */
export function rawRequest(url: string, head: string, feed?: (socket: Socket) => number): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = '';
    let sent = 0;
    let done = false;
    const started = performance.now();
    const finish = (error?: Error): void => {
      if (done) return;
      const answer = parseAnswer(raw);
      if (answer === null && error === undefined) return;
      done = true;
      socket.destroy();
      if (answer === null) reject(error ?? new Error('no answer'));
      else resolve({ ...answer, elapsedMs: performance.now() - started, bytesSent: sent });
    };
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      raw += text;
      finish();
    });
    // A server that answers early and closes makes our writes fail (EPIPE, ECONNRESET); the
    // answer may still be readable, so only the close decides.
    let failure: Error | undefined;
    socket.on('error', (error) => {
      failure = error;
    });
    socket.on('close', () => finish(new Error(`connection closed without a complete answer (${failure?.message ?? 'no error'}): ${JSON.stringify(raw.slice(0, 200))}`)));
    socket.write(head);
    if (feed === undefined) return;
    // One chunk per event-loop turn, so the answer is noticed as soon as it arrives.
    const pump = (): void => {
      if (done || failure !== undefined || socket.destroyed) return;
      const wrote = feed(socket);
      if (wrote <= 0) return;
      sent += wrote;
      if (socket.writableNeedDrain) socket.once('drain', pump);
      else setImmediate(pump);
    };
    socket.on('connect', pump);
  });
}

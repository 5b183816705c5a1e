// A minimal HTTP/1.1 keep-alive client over one socket, one request at a time: a streaming session
// is a strict sequence of requests, and fetch's own overhead (~0.1 ms per request here) would hide
// the server's per-push cost on a 2-core machine.
import { connect, type Socket } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');
const LENGTH = /\r\ncontent-length: *(\d+)/i;

export class KeepAliveClient {
  readonly #socket: Socket;
  readonly #headPrefix: string;
  #pending: Buffer = Buffer.alloc(0);
  #waiting: ((body: string) => void) | null = null;
  #fail: ((error: Error) => void) | null = null;

  private constructor(socket: Socket, host: string, authorization: string) {
    this.#socket = socket;
    this.#headPrefix = `Host: ${host}\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\n`;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => {
      this.#pending = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
      this.#tryAnswer();
    });
    socket.on('error', (error) => this.#fail?.(error));
    socket.on('close', () => this.#fail?.(new Error('connection closed')));
  }

  static open(url: string, authorization: string): Promise<KeepAliveClient> {
    const { hostname, port, host } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new KeepAliveClient(socket, host, authorization)));
      socket.once('error', reject);
    });
  }

  /** POSTs `body` and resolves with the answer's body text. */
  post(path: string, body: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.#fail = reject;
      this.#socket.write(`POST ${path} HTTP/1.1\r\n${this.#headPrefix}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  #tryAnswer(): void {
    const headEnd = this.#pending.indexOf(HEAD_END);
    if (headEnd === -1 || this.#waiting === null) return;
    const head = this.#pending.subarray(0, headEnd).toString('latin1');
    const length = Number(LENGTH.exec(head)?.[1] ?? 0);
    const end = headEnd + 4 + length;
    if (this.#pending.length < end) return;
    const body = this.#pending.subarray(headEnd + 4, end).toString('utf8');
    this.#pending = this.#pending.subarray(end);
    const resolve = this.#waiting;
    this.#waiting = null;
    this.#fail = null;
    resolve(body);
  }

  close(): void {
    this.#socket.destroy();
  }
}

// Sends a forwarded stream request to the node that owns the session (its PEER_URL) and waits for
// its answer, bounded: a peer that does not accept the connection within `connectTimeoutMs`
// (a machine gone, a cable cut) or does not answer within `replyTimeoutMs` counts as unreachable,
// as does a refused connection (the owner's process died). Unreachable is `null`: the caller answers
// SESSION_NOT_FOUND, never a hang. Connections are kept alive between requests.
import http from 'node:http';
import { peerSignature, type PeerFields } from './peer-signature.js';

export const PEER_PATH = '/internal/peer/stream';

export const PEER_HEADERS = {
  endpoint: 'x-jsonmend-peer-endpoint',
  contract: 'x-jsonmend-peer-contract',
  keyId: 'x-jsonmend-peer-key',
  sessionId: 'x-jsonmend-peer-session',
  warnings: 'x-jsonmend-peer-warnings',
  time: 'x-jsonmend-peer-time',
  signature: 'x-jsonmend-peer-signature',
  /** On the answer: the owner's outcome (error code, confidence, repair counts, fault) as JSON. */
  outcome: 'x-jsonmend-peer-outcome',
} as const;

const LIVENESS_CHECK_MS = 250;

export interface PeerReply {
  status: number;
  body: string;
  outcome: string;
}

// A kept-alive connection the owner closed while idle fails on its next request before anything
// was processed; those requests are sent once more on a fresh connection.
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export class PeerClient {
  // Idle connections are dropped after 4 s, before uWS's 10 s idle timeout closes them on the owner.
  readonly #agent = new http.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 64 });

  constructor(
    private readonly secret: string,
    private readonly connectTimeoutMs: number,
    private readonly replyTimeoutMs: number,
  ) {}

  /** `alive`: asked every LIVENESS_CHECK_MS while waiting; false (the owner left the registry) gives up at once. */
  async send(peerUrl: string, fields: PeerFields, body: Buffer, alive: () => boolean): Promise<PeerReply | null> {
    const time = String(Date.now());
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/octet-stream',
      'content-length': body.byteLength,
      [PEER_HEADERS.endpoint]: fields.endpoint,
      [PEER_HEADERS.contract]: fields.contract,
      [PEER_HEADERS.keyId]: fields.keyId,
      [PEER_HEADERS.sessionId]: fields.sessionId,
      [PEER_HEADERS.warnings]: fields.warnings,
      [PEER_HEADERS.time]: time,
      [PEER_HEADERS.signature]: peerSignature(this.secret, time, fields, body),
    };
    const first = await this.#request(peerUrl, headers, body, alive);
    if (first !== 'retry') return first;
    const second = await this.#request(peerUrl, headers, body, alive);
    return second === 'retry' ? null : second;
  }

  #request(peerUrl: string, headers: http.OutgoingHttpHeaders, body: Buffer, alive: () => boolean): Promise<PeerReply | null | 'retry'> {
    return new Promise((resolve) => {
      const sentAt = performance.now();
      let settled = false;
      const settle = (value: PeerReply | null | 'retry'): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(value);
      };
      const request = http.request(`${peerUrl}${PEER_PATH}`, { method: 'POST', agent: this.#agent, headers }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => settle({
          status: response.statusCode ?? 500,
          body: Buffer.concat(parts).toString('utf8'),
          outcome: String(response.headers[PEER_HEADERS.outcome] ?? ''),
        }));
        response.on('error', () => settle(null));
      });
      // One timer per request: it wakes every LIVENESS_CHECK_MS, so a frozen owner (accepting
      // connections, answering nothing) is given up as soon as the registry drops it.
      const check = (): void => {
        if (!alive()) request.destroy(new Error('peer left the registry'));
        else if (performance.now() - sentAt >= this.replyTimeoutMs) request.destroy(new Error('peer did not answer in time'));
        else deadline.refresh();
      };
      const deadline = setTimeout(check, LIVENESS_CHECK_MS);
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => request.destroy(new Error('peer did not accept the connection in time')), this.connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        settle(request.reusedSocket && STALE_CONNECTION.has(error.code ?? '') ? 'retry' : null);
      });
      request.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

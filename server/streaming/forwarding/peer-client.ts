// Sends a forwarded stream request to the node that owns the session (its PEER_URL) and waits for
// its answer, bounded: a peer that does not accept the connection within `connectTimeoutMs`
// (a machine gone, a cable cut) or does not answer within `replyTimeoutMs` counts as unreachable,
// as does a refused connection (the owner's process died). Unreachable is `null`: the caller answers
// SESSION_NOT_FOUND, never a hang. Connections are kept alive between requests.
// A peer URL comes from the registry in Redis, so it may be anything: whatever it is, and whatever
// the peer answers (garbage, an endless body, a reset), `send` resolves — null when it is not a
// usable answer — and never throws or rejects: nothing a peer does may end this process.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { bodyDigest, peerSignature, type PeerFields, type PeerStamp } from './peer-signature.js';

export const PEER_PATH = '/internal/peer/stream';

export const PEER_HEADERS = {
  endpoint: 'x-jsonmend-peer-endpoint',
  contract: 'x-jsonmend-peer-contract',
  keyId: 'x-jsonmend-peer-key',
  sessionId: 'x-jsonmend-peer-session',
  warnings: 'x-jsonmend-peer-warnings',
  time: 'x-jsonmend-peer-time',
  nonce: 'x-jsonmend-peer-nonce',
  digest: 'x-jsonmend-peer-digest',
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

/** The address of a peer URL as `http.request` takes it, or null: only plain http is spoken between nodes. */
function targetOf(peerUrl: string): URL | null {
  try {
    const url = new URL(PEER_PATH, peerUrl);
    return url.protocol === 'http:' && url.hostname !== '' ? url : null;
  } catch {
    return null;
  }
}

export class PeerClient {
  // Idle connections are dropped after 4 s, before uWS's 10 s idle timeout closes them on the owner.
  readonly #agent = new http.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 64 });
  /** Names this process's forwards; with #sequence, the nonce the owner accepts once. */
  readonly #sender = randomBytes(12).toString('base64url');
  #sequence = 0;
  readonly #targets = new Map<string, URL | null>();

  /** `maxReplyBytes`: an answer longer than this is not an owner's answer (the largest finalize is far smaller). */
  constructor(
    private readonly secret: string,
    private readonly connectTimeoutMs: number,
    private readonly replyTimeoutMs: number,
    private readonly maxReplyBytes: number,
  ) {}

  /** `alive`: asked every LIVENESS_CHECK_MS while waiting; false (the owner left the registry) gives up at once. */
  async send(peerUrl: string, fields: PeerFields, body: Buffer, alive: () => boolean): Promise<PeerReply | null> {
    try {
      const target = this.#targetOf(peerUrl);
      if (target === null) return null;
      const digest = bodyDigest(body);
      const first = await this.#request(target, this.#headers(fields, body, digest), body, alive);
      if (first !== 'retry') return first;
      // A new nonce: the owner accepts each one once, and it may have seen the first.
      const second = await this.#request(target, this.#headers(fields, body, digest), body, alive);
      return second === 'retry' ? null : second;
    } catch {
      return null;
    }
  }

  #targetOf(peerUrl: string): URL | null {
    let target = this.#targets.get(peerUrl);
    if (target === undefined) {
      target = targetOf(peerUrl);
      // Registry values are few; a stranger cannot add any (Redis is the operator's).
      if (this.#targets.size > 1_024) this.#targets.clear();
      this.#targets.set(peerUrl, target);
    }
    return target;
  }

  #headers(fields: PeerFields, body: Buffer, digest: string): http.OutgoingHttpHeaders {
    const stamp: PeerStamp = { time: String(Date.now()), nonce: `${this.#sender}:${++this.#sequence}`, length: body.byteLength, digest };
    return {
      'content-type': 'application/octet-stream',
      'content-length': body.byteLength,
      [PEER_HEADERS.endpoint]: fields.endpoint,
      [PEER_HEADERS.contract]: fields.contract,
      [PEER_HEADERS.keyId]: fields.keyId,
      [PEER_HEADERS.sessionId]: fields.sessionId,
      [PEER_HEADERS.warnings]: fields.warnings,
      [PEER_HEADERS.time]: stamp.time,
      [PEER_HEADERS.nonce]: stamp.nonce,
      [PEER_HEADERS.digest]: digest,
      [PEER_HEADERS.signature]: peerSignature(this.secret, stamp, fields),
    };
  }

  #request(target: URL, headers: http.OutgoingHttpHeaders, body: Buffer, alive: () => boolean): Promise<PeerReply | null | 'retry'> {
    return new Promise((resolve) => {
      const sentAt = performance.now();
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      const settle = (value: PeerReply | null | 'retry'): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(value);
      };
      let request: http.ClientRequest;
      try {
        request = http.request(target, { method: 'POST', agent: this.#agent, headers }, (response) => {
          const parts: Buffer[] = [];
          let size = 0;
          response.on('data', (part: Buffer) => {
            size += part.byteLength;
            if (size > this.maxReplyBytes) {
              request.destroy(new Error('peer answer over its limit'));
              settle(null);
              return;
            }
            parts.push(part);
          });
          response.on('end', () => settle({
            status: response.statusCode ?? 500,
            body: Buffer.concat(parts).toString('utf8'),
            outcome: String(response.headers[PEER_HEADERS.outcome] ?? ''),
          }));
          response.on('error', () => settle(null));
          response.on('aborted', () => settle(null));
        });
      } catch {
        settle(null);
        return;
      }
      // One timer per request: it wakes every LIVENESS_CHECK_MS, so a frozen owner (accepting
      // connections, answering nothing) is given up as soon as the registry drops it.
      const check = (): void => {
        if (settled) return;
        if (!alive()) request.destroy(new Error('peer left the registry'));
        else if (performance.now() - sentAt >= this.replyTimeoutMs) request.destroy(new Error('peer did not answer in time'));
        else deadline!.refresh();
      };
      deadline = setTimeout(check, LIVENESS_CHECK_MS);
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

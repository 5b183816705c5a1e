// The owner's side of forwarding: POST /internal/peer/stream, a push or finalize that another node
// received for a session this node holds, or the question whether it holds a compact id (`hold`).
// Only requests signed with CLUSTER_SECRET are acted on (peer-signature.ts), each once
// (peer-replay.ts); the key id they carry is the one checked against the session's, so another
// key never reaches a session through any node. The answer is the session's own, with its outcome
// in a header for the forwarding node's logs, metrics and usage; nothing is counted here twice.
import { makeError } from '../../contracts/error-codes.js';
import type { Warning } from '../../../engine/types.js';
import type { Contract } from '../../contracts/contract.js';
import { renderError } from '../../contracts/render.js';
import { BodyRequest, contentLengthOf } from '../../http/body-request.js';
import type { HttpContext } from '../../http/http-context.js';
import { answerOf, refusalAnswer, type RouteAnswer } from '../../http/route-answer.js';
import { requestIdFor } from '../../http/request-id.js';
import { JSON_TYPE, writeAnswer } from '../../http/response-writer.js';
import type { RouteEntry } from '../../http/router.js';
import { tableKeyOf } from '../session-table.js';
import type { StreamSessions } from '../stream-sessions.js';
import type { HttpResponse } from '../../http/load-uws.js';
import { PEER_HEADERS, PEER_PATH } from './peer-client.js';
import { STALL_MS } from './node-registry.js';
import { PeerReplayGuard } from './peer-replay.js';
import { bodyMatches, verifyPeerSignature, type PeerFields, type PeerStamp } from './peer-signature.js';
import type { PeerOutcome } from './session-forwarder.js';

const UNSIGNED = renderError(makeError('INVALID_API_KEY', 'This endpoint takes only requests forwarded by another node, signed with the cluster\'s CLUSTER_SECRET.'), 'envelope', null, 0, 401);
const REPLAYED = renderError(makeError('INVALID_API_KEY', 'This forwarded request was already accepted once; a forward is never accepted twice.'), 'envelope', null, 0, 401);
const MALFORMED = renderError(makeError('INVALID_REQUEST', 'The forwarded request names no known endpoint or contract, or has no Content-Length.'), 'envelope', null, 0, 400);
const NOT_FOUND = makeError('SESSION_NOT_FOUND');
const TOO_LATE = makeError('SESSION_NOT_FOUND', 'This push reached the node holding the session too late to be sure it was still awaited; the session was dropped so that no answer misses it.');

/** Counts of forwarded requests this node received, for /metrics. */
export class PeerRouteStats {
  served = 0;
  refused = 0;
}

/** One forwarded request: the shared request lifecycle (BodyRequest), answered once with its outcome header. */
class PeerRequest extends BodyRequest {
  constructor(
    res: HttpResponse,
    ctx: HttpContext,
    readonly requestId: string,
    readonly fields: PeerFields,
    readonly stamp: PeerStamp,
  ) {
    super(res, ctx);
  }

  get closed(): boolean {
    return this.aborted || this.finished;
  }

  /** Reads the signed body: exactly its Content-Length, no more. */
  read(done: (body: Buffer | null) => void): void {
    this.readBody(this.stamp.length, this.stamp.length, done);
  }

  finish(status: number, body: string, outcome: string | null): void {
    if (!this.claimAnswer()) return;
    writeAnswer(this.res, status, JSON_TYPE, body, this.requestId, outcome === null ? null : [[PEER_HEADERS.outcome, outcome]], this.ctx.lifecycle.draining);
    this.answered();
  }
}

/**
 * `maxPayloadBytes`: a forwarded push carries a chunk of at most that many UTF-8 bytes (the
 * forwarding node refuses larger ones itself), as UTF-16: at most twice as many bytes. A finalize
 * carries none. Everything else about a request is judged from its signed headers, before its
 * body is read: a stranger's request costs no memory (docs/reliability.md "Hostile uploads").
 */
export function peerRouteEntry(ctx: HttpContext, sessions: StreamSessions, secret: string, stats: PeerRouteStats, maxPayloadBytes: number): RouteEntry {
  const replays = new PeerReplayGuard();

  const refuse = (request: PeerRequest, refusal: { status: number; body: string }, why: string): void => {
    stats.refused++;
    ctx.logger.log('warn', `refused a forwarded request: ${why}`, { requestId: request.requestId });
    request.finish(refusal.status, refusal.body, null);
  };

  const answer = (request: PeerRequest, routeAnswer: RouteAnswer): void => {
    const { outcome } = routeAnswer;
    const peer: PeerOutcome = {
      errorCode: outcome.errorCode,
      confidence: outcome.confidence,
      repairCounts: outcome.repairCounts,
      inputBytes: outcome.inputBytes,
      fault: outcome.fault,
      execution: routeAnswer.execution,
    };
    stats.served++;
    request.finish(routeAnswer.status, routeAnswer.body, JSON.stringify(peer));
  };

  /** Whether to read the body: false when the headers alone earn a refusal (answered here). */
  const judgeHeaders = (request: PeerRequest, signature: string): boolean => {
    const { fields, stamp } = request;
    const limit = fields.endpoint === 'push' ? 2 * maxPayloadBytes : fields.endpoint === 'finalize' || fields.endpoint === 'hold' ? 0 : -1;
    if (limit < 0 || (fields.contract !== 'envelope' && fields.contract !== 'compact') || stamp.length < 0) {
      refuse(request, MALFORMED, 'no known endpoint or contract, or no Content-Length');
      return false;
    }
    if (!verifyPeerSignature(secret, stamp, signature, fields)) {
      refuse(request, UNSIGNED, 'no valid cluster signature');
      return false;
    }
    if (stamp.length > limit) {
      // Signed, so a node sent it: one that speaks another version of this protocol.
      refuse(request, MALFORMED, 'a body over the forward limit');
      return false;
    }
    if (!replays.accept(stamp.nonce)) {
      refuse(request, REPLAYED, 'a nonce already accepted (a replay)');
      return false;
    }
    return true;
  };

  const handle = (request: PeerRequest, body: Buffer): void => {
    const { fields } = request;
    if (!bodyMatches(request.stamp, body)) {
      refuse(request, UNSIGNED, 'a body that is not the one signed');
      return;
    }
    const contract = fields.contract as Contract;
    let keyId: string;
    let sessionId: string;
    let warnings: readonly Warning[] | null;
    try {
      keyId = decodeURIComponent(fields.keyId);
      sessionId = decodeURIComponent(fields.sessionId);
      warnings = fields.warnings === '' ? null : (JSON.parse(decodeURIComponent(fields.warnings)) as Warning[]);
    } catch {
      request.finish(MALFORMED.status, MALFORMED.body, null);
      return;
    }
    if (fields.endpoint === 'hold') {
      // Whether this node holds the id (another node is about to open it): nothing changes.
      const held = sessions.table.find(tableKeyOf(contract, keyId, sessionId), performance.now()) !== undefined;
      answer(request, held ? answerOf(contract, 200, '{}', null, 0) : refusalAnswer(contract, NOT_FOUND, 0));
      return;
    }
    if (Date.now() - Number(request.stamp.time) >= STALL_MS) {
      // Sent STALL_MS ago or more: this node was frozen or far behind, and the sending node may have
      // given up on it and answered SESSION_NOT_FOUND. Acting on it now could apply a chunk the
      // client was told was not applied; dropping the session makes every later answer agree.
      sessions.giveUp(keyId, contract, sessionId);
      answer(request, refusalAnswer(contract, TOO_LATE, 0));
      return;
    }
    const result = fields.endpoint === 'push'
      ? sessions.push(keyId, contract, { sessionId, chunk: body.toString('utf16le') }, true)
      : sessions.finalize(keyId, contract, { sessionId }, warnings, true);
    if (result instanceof Promise) {
      void result.then((settled) => {
        if (!request.closed) request.res.cork(() => answer(request, settled));
      });
    } else {
      answer(request, result);
    }
  };

  return {
    method: 'post',
    path: PEER_PATH,
    name: 'peer_stream',
    handler: (res, req) => {
      const request = new PeerRequest(res, ctx, requestIdFor(req.getHeader('x-request-id')), {
        endpoint: req.getHeader(PEER_HEADERS.endpoint),
        contract: req.getHeader(PEER_HEADERS.contract),
        keyId: req.getHeader(PEER_HEADERS.keyId),
        sessionId: req.getHeader(PEER_HEADERS.sessionId),
        warnings: req.getHeader(PEER_HEADERS.warnings),
      }, {
        time: req.getHeader(PEER_HEADERS.time),
        nonce: req.getHeader(PEER_HEADERS.nonce),
        length: contentLengthOf(req.getHeader('content-length')),
        digest: req.getHeader(PEER_HEADERS.digest),
      });
      // Refused from the headers: answered now, and uWS discards whatever of the body still arrives.
      if (!judgeHeaders(request, req.getHeader(PEER_HEADERS.signature))) return;
      request.read((body) => {
        if (body === null) refuse(request, UNSIGNED, 'a body longer than its Content-Length');
        else handle(request, body);
      });
    },
  };
}

// The owner's side of forwarding: POST /internal/peer/stream, a push or finalize that another node
// received for a session this node holds. Only requests signed with CLUSTER_SECRET are acted on
// (peer-signature.ts); the key id they carry is the one checked against the session's, so another
// key never reaches a session through any node. The answer is the session's own, with its outcome
// in a header for the forwarding node's logs, metrics and usage; nothing is counted here twice.
import { makeError } from '../../contracts/error-codes.js';
import type { Warning } from '../../../engine/types.js';
import type { Contract } from '../../contracts/contract.js';
import { renderError } from '../../contracts/render.js';
import type { HttpContext } from '../../http/http-context.js';
import type { RouteAnswer } from '../../http/route-answer.js';
import { requestIdFor } from '../../http/request-id.js';
import { JSON_TYPE, writeAnswer } from '../../http/response-writer.js';
import type { RouteEntry } from '../../http/router.js';
import type { StreamSessions } from '../stream-sessions.js';
import type { HttpResponse } from '../../http/load-uws.js';
import { PEER_HEADERS, PEER_PATH } from './peer-client.js';
import { verifyPeerSignature, type PeerFields } from './peer-signature.js';
import type { PeerOutcome } from './session-forwarder.js';

const UNSIGNED = renderError(makeError('INVALID_API_KEY', 'This endpoint takes only requests forwarded by another node, signed with the cluster\'s CLUSTER_SECRET.'), 'envelope', null, 0, 401);
const MALFORMED = renderError(makeError('INVALID_REQUEST', 'The forwarded request names no known endpoint or contract.'), 'envelope', null, 0, 400);
const TOO_LARGE = renderError(makeError('PAYLOAD_TOO_LARGE', 'The forwarded chunk is over the body limit.'), 'envelope', null, 0, 413);

/** Counts of forwarded requests this node received, for /metrics. */
export class PeerRouteStats {
  served = 0;
  refused = 0;
}

class PeerRequest {
  closed = false;
  readonly parts: Buffer[] = [];
  received = 0;

  constructor(
    readonly res: HttpResponse,
    readonly requestId: string,
    readonly fields: PeerFields,
    readonly time: string,
    readonly signature: string,
  ) {}
}

export function peerRouteEntry(ctx: HttpContext, sessions: StreamSessions, secret: string, stats: PeerRouteStats): RouteEntry {
  // A chunk travels as UTF-16 (two bytes a code unit), so its limit is twice the public body limit.
  const limit = 2 * ctx.config.maxBodyBytes;

  const finish = (request: PeerRequest, status: number, body: string, outcome: string | null): void => {
    if (request.closed) return;
    request.closed = true;
    writeAnswer(request.res, status, JSON_TYPE, body, request.requestId, outcome === null ? null : [[PEER_HEADERS.outcome, outcome]], ctx.lifecycle.draining);
    ctx.lifecycle.end();
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
    finish(request, routeAnswer.status, routeAnswer.body, JSON.stringify(peer));
  };

  const handle = (request: PeerRequest, body: Buffer): void => {
    const { fields } = request;
    if (!verifyPeerSignature(secret, request.time, request.signature, fields, body)) {
      stats.refused++;
      ctx.logger.log('warn', 'refused a forwarded request without a valid cluster signature', { requestId: request.requestId });
      finish(request, UNSIGNED.status, UNSIGNED.body, null);
      return;
    }
    const contract = fields.contract as Contract;
    if ((fields.endpoint !== 'push' && fields.endpoint !== 'finalize') || (contract !== 'envelope' && contract !== 'compact')) {
      finish(request, MALFORMED.status, MALFORMED.body, null);
      return;
    }
    let keyId: string;
    let sessionId: string;
    let warnings: readonly Warning[] | null;
    try {
      keyId = decodeURIComponent(fields.keyId);
      sessionId = decodeURIComponent(fields.sessionId);
      warnings = fields.warnings === '' ? null : (JSON.parse(decodeURIComponent(fields.warnings)) as Warning[]);
    } catch {
      finish(request, MALFORMED.status, MALFORMED.body, null);
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
      ctx.lifecycle.begin();
      const request = new PeerRequest(res, requestIdFor(req.getHeader('x-request-id')), {
        endpoint: req.getHeader(PEER_HEADERS.endpoint),
        contract: req.getHeader(PEER_HEADERS.contract),
        keyId: req.getHeader(PEER_HEADERS.keyId),
        sessionId: req.getHeader(PEER_HEADERS.sessionId),
        warnings: req.getHeader(PEER_HEADERS.warnings),
      }, req.getHeader(PEER_HEADERS.time), req.getHeader(PEER_HEADERS.signature));
      res.onAborted(() => {
        if (request.closed) return;
        request.closed = true;
        ctx.lifecycle.end();
      });
      res.onData((chunk, isLast) => {
        if (request.closed) return;
        request.received += chunk.byteLength;
        if (request.received > limit) {
          finish(request, TOO_LARGE.status, TOO_LARGE.body, null);
          return;
        }
        request.parts.push(Buffer.from(chunk.slice(0)));
        if (isLast) handle(request, request.parts.length === 1 ? request.parts[0]! : Buffer.concat(request.parts));
      });
    },
  };
}

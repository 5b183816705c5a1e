// POST /v1/repair/stream/start|push|finalize. Each goes through the shared JSON POST pipeline
// (request id, key, admission, body limit, error shapes); dispatch reads the body, picks its
// contract and hands the validated request to StreamSessions. Streaming needs a key: the demo has none.
import { makeError } from '../contracts/error-codes.js';
import { SCHEMA_ALLOWANCE_BYTES, type ContractSetting } from '../config/load-config.js';
import { fallbackContract, type Contract } from '../contracts/contract.js';
import type { HttpContext } from '../http/http-context.js';
import { jsonPostHandler, type JsonPostRoute, type PostRequest } from '../http/json-post.js';
import { refusalAnswer, type RouteAnswer } from '../http/route-answer.js';
import type { RouteEntry } from '../http/router.js';
import { readFinalize, readPush, readStart, streamContract, type StreamEndpoint } from './stream-requests.js';
import type { StreamSessions } from './stream-sessions.js';

const NOT_JSON = makeError('INVALID_REQUEST', 'The request body is not valid JSON.');
const NEITHER = makeError('INVALID_REQUEST', 'The request names neither contract: send "session_id" / "chunk" (envelope contract) or "sessionId" / "content" (compact contract).');
const NOT_OBJECT = makeError('INVALID_REQUEST', 'The request body must be a JSON object.');

/** Room for a session id, the field names and any whitespace a client pretty-prints around them. */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * Each endpoint reads no more than its requests can hold: a push a chunk (the configured body
 * limit), a start a schema at most, a finalize only its session id. Larger bodies are refused from
 * their Content-Length, unread.
 */
export function streamBodyLimit(endpoint: StreamEndpoint, maxBodyBytes: number): number {
  if (endpoint === 'push') return maxBodyBytes;
  return endpoint === 'start' ? Math.min(maxBodyBytes, SCHEMA_ALLOWANCE_BYTES + SMALL_BODY_BYTES) : SMALL_BODY_BYTES;
}

export class StreamRoute implements JsonPostRoute {
  readonly name: string;
  readonly requiresKey = true;
  readonly demoMessage = null;
  readonly maxBodyBytes: number;

  constructor(
    readonly endpoint: StreamEndpoint,
    private readonly sessions: StreamSessions,
    private readonly setting: ContractSetting,
    maxBodyBytes: number,
    private readonly ctx: HttpContext,
  ) {
    this.name = `stream_${endpoint}`;
    this.maxBodyBytes = streamBodyLimit(endpoint, maxBodyBytes);
  }

  /** A push or finalize that named no open session is charged after all (admission-hook.ts `unmatched`). */
  #charged(request: PostRequest, answer: RouteAnswer | Promise<RouteAnswer>): RouteAnswer | Promise<RouteAnswer> {
    const charge = (a: RouteAnswer): RouteAnswer => {
      if (a.outcome.errorCode === 'SESSION_NOT_FOUND') this.ctx.admission.unmatched?.(this.name, request.key!);
      return a;
    };
    return answer instanceof Promise ? answer.then(charge) : charge(answer);
  }

  dispatch(request: PostRequest, body: Uint8Array): RouteAnswer | Promise<RouteAnswer> {
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    let parsed: unknown;
    try {
      // Every start field is optional (spec: "An empty object is allowed"): no body at all means {}.
      parsed = this.endpoint === 'start' && text.trim().length === 0 ? {} : JSON.parse(text);
    } catch {
      return refusalAnswer(fallbackContract(this.setting), NOT_JSON, body.byteLength);
    }
    const contract = streamContract(this.endpoint, parsed, this.setting);
    if (contract === null) {
      const objectBody = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      return refusalAnswer('envelope', objectBody ? NEITHER : NOT_OBJECT, body.byteLength);
    }
    switch (this.endpoint) {
      case 'start': {
        const start = readStart(parsed, contract);
        return typeof start === 'string' ? invalid(contract, start) : this.sessions.start(request, contract, start);
      }
      case 'push': {
        const push = readPush(parsed, contract);
        return typeof push === 'string' ? invalid(contract, push) : this.#charged(request, this.sessions.push(request.key!.id, contract, push, false, request));
      }
      case 'finalize': {
        const finalize = readFinalize(parsed, contract);
        return typeof finalize === 'string' ? invalid(contract, finalize) : this.#charged(request, this.sessions.finalize(request.key!.id, contract, finalize, request.warnings));
      }
    }
  }
}

function invalid(contract: Contract, message: string): RouteAnswer {
  return refusalAnswer(contract, makeError('INVALID_REQUEST', message), 0);
}

export const STREAM_PATHS: Record<StreamEndpoint, string> = {
  start: '/v1/repair/stream/start',
  push: '/v1/repair/stream/push',
  finalize: '/v1/repair/stream/finalize',
};

export function streamRouteEntries(ctx: HttpContext, sessions: StreamSessions): RouteEntry[] {
  return (['start', 'push', 'finalize'] as const).map((endpoint) => {
    const route = new StreamRoute(endpoint, sessions, ctx.config.contract, ctx.config.maxBodyBytes, ctx);
    return { method: 'post', path: STREAM_PATHS[endpoint], name: route.name, handler: jsonPostHandler(route, ctx) };
  });
}

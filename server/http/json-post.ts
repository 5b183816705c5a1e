// The pipeline of every JSON POST endpoint, one object per request:
//   Content-Length over the route's body limit -> PAYLOAD_TOO_LARGE at once, before any of the body is read;
//   authentication and the admission hook (before the body is read). A request they refuse (a wrong
//   key, a spent allowance) keeps only what its answer's contract is judged by (the whole body up
//   to 64 KiB, else its first 4 KiB) and is answered then: the rest is never held. While the key
//   store is being asked about a key, at most 64 KiB are read before the socket is paused;
//   the body, counted chunk by chunk (chunked uploads have no Content-Length, and are refused as
//   soon as they pass the limit); a route may refuse once its first 4 KiB are in (a full pool),
//   answered in the contract they show;
//   the route's dispatch, or the refusal rendered in the contract the body speaks.
// In-flight counting, aborts and answering once are the shared request lifecycle's (BodyRequest); the
// body is read here, not with BodyRequest.readBody, because it is interleaved with admission (held,
// paused, answered from a prefix) and a body that comes in one chunk is used in place, uncopied.
// uWS rules (docs/design.md "uWS rules"): onAborted always registered; onData's ArrayBuffer is copied inside the
// callback; writes after an await go through res.cork(); nothing touches res after an abort.
import { makeError } from '../contracts/error-codes.js';
import type { RepairError, Warning } from '../../engine/types.js';
import { contractOfSample, EXACT_SNIFF_BYTES, sampleOf, sampleOfChunks, sampleOfPrefix, SNIFF_WINDOW_BYTES, type BodySample } from '../contracts/contract-sniffer.js';
import { describeFault, NO_COUNTS, type Execution } from '../observe/request-record.js';
import type { HttpRequest, HttpResponse } from './load-uws.js';
import type { AdmissionDecision } from './admission-hook.js';
import type { AuthResult, KeyRecord } from './authentication-hook.js';
import { BodyRequest, contentLengthOf } from './body-request.js';
import { notifyObservers, type HttpContext } from './http-context.js';
import { requestIdFor } from './request-id.js';
import { refusalAnswer, type RouteAnswer } from './route-answer.js';
import { JSON_TYPE, writeAnswer, type HeaderList } from './response-writer.js';

export interface JsonPostRoute {
  readonly name: string;
  readonly requiresKey: boolean;
  /** Largest body this route reads; default the configured body limit (MAX_PAYLOAD_BYTES's). */
  readonly maxBodyBytes?: number;
  /** Non-null on the demo endpoint: its answers, errors included, carry `demo: true` and this. */
  readonly demoMessage: string | null;
  /** `body` stays valid after dispatch returns only when `owned` (else copy what you keep). Never rejects. */
  dispatch(request: PostRequest, body: Uint8Array, owned: boolean): RouteAnswer | Promise<RouteAnswer>;
  /**
   * Asked once the first SNIFF_WINDOW_BYTES of a body with a Content-Length have arrived (the
   * window its contract is judged by): an error to answer at once rather than read a body whose
   * fate is already known (a large body headed for a full pool), or null to read it.
   */
  refusalBeforeBody?(contentLength: number): RepairError | null;
}

interface Refusal { error: RepairError; retryAfterSeconds: number }

/** Work a route has started for a request, to be dropped if the client goes away first. */
export interface Cancellable {
  cancel(): void;
}

const INTERNAL = makeError('INTERNAL_ERROR');
/** Answers that served nothing: a body that is no request (or too large), a server that could not take it. */
const UNSERVED = new Set(['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']);

export class PostRequest extends BodyRequest {
  readonly time = Date.now();
  readonly #start = performance.now();
  #received = 0;
  /** Preallocated when Content-Length is known; otherwise chunks are copied into #chunks. */
  #buffer: Uint8Array | null = null;
  #chunks: Uint8Array[] | null = null;
  #refusal: Refusal | null = null;
  #admitting: Promise<void> | null = null;
  /** Bytes kept in #chunks while the request is refused or not yet admitted (at most EXACT_SNIFF_BYTES). */
  #held = 0;
  #paused = false;
  headers: HeaderList | null = null;
  /** A keyless request that counted against its address's allowance (the demo): given back if not served. */
  chargedIp: string | null = null;
  warnings: readonly Warning[] | null = null;
  key: KeyRecord | undefined = undefined;
  /** Set by a route whose answer waits on queued work (the pool). */
  waitingOn: Cancellable | null = null;

  constructor(
    res: HttpResponse,
    readonly route: JsonPostRoute,
    ctx: HttpContext,
    readonly requestId: string,
    readonly contentLength: number,
    readonly maxBodyBytes: number,
  ) {
    super(res, ctx);
  }

  refuse(error: RepairError, retryAfterSeconds: number): void {
    this.#refusal = { error, retryAfterSeconds };
  }

  /** Authentication is waiting on the key store: the body is read meanwhile, dispatched after. */
  admitLater(admitted: Promise<void>): void {
    this.#admitting = admitted.catch((error: unknown) => {
      this.ctx.logger.log('error', 'admission failed', { requestId: this.requestId, route: this.route.name, fault: describeFault(error) });
      this.refuse(INTERNAL, 0);
    }).then(() => this.#admitted());
  }

  /** Runs `then` once admission has decided: at once when it has, else corked when it does. */
  afterAdmission(then: () => void): void {
    const admitting = this.#admitting;
    if (admitting === null) {
      then();
      return;
    }
    void admitting.then(() => {
      if (!this.aborted && !this.finished) this.res.cork(then);
    });
  }

  /** Admission decided while the body was arriving: refused, answered from what is held; admitted, read on. */
  #admitted(): void {
    if (this.aborted || this.finished || this.#admitting === null) return;
    this.#admitting = null;
    if (this.#refusal !== null && this.#held > 0) {
      this.res.cork(() => this.#answerHeldRefusal(false));
      return;
    }
    if (this.#paused) {
      this.#paused = false;
      this.res.resume();
    }
  }

  protected override clientGone(): void {
    this.#buffer = null;
    this.#chunks = null;
    this.waitingOn?.cancel();
  }

  protected override recordAbort(): void {
    this.#record(null, 'none');
  }

  onData(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.finished || this.aborted) return;
    const size = chunk.byteLength;
    this.#received += size;
    if (this.#received > this.maxBodyBytes) {
      this.#refuseOversize(new Uint8Array(chunk));
      return;
    }
    if ((this.#refusal !== null || this.#admitting !== null) && this.#holdBack(chunk, isLast)) return;
    if (isLast && this.#buffer === null && this.#chunks === null) {
      // The whole body in one chunk: use it in place, before uWS reclaims it on return.
      this.#complete(new Uint8Array(chunk), false);
      return;
    }
    if (this.contentLength >= 0) {
      this.#buffer ??= this.#allocate();
      this.#buffer.set(new Uint8Array(chunk), this.#received - size);
      // Once the window the contract is judged by has arrived, a route may refuse the rest unread.
      if (!isLast && this.#received >= SNIFF_WINDOW_BYTES && this.#received - size < SNIFF_WINDOW_BYTES && this.#refuseEarly()) return;
    } else {
      (this.#chunks ??= []).push(new Uint8Array(chunk.slice(0)));
    }
    if (isLast) this.#complete(this.#assemble(), true);
  }

  /** The body's buffer, with what was held while admission was pending already in it. */
  #allocate(): Uint8Array {
    return this.#gather(new Uint8Array(this.contentLength));
  }

  /** Copies the chunks kept so far to the start of `into` and lets them go. */
  #gather(into: Uint8Array): Uint8Array {
    let offset = 0;
    for (const part of this.#chunks ?? []) {
      into.set(part, offset);
      offset += part.byteLength;
    }
    this.#chunks = null;
    return into;
  }

  /**
   * A chunk of a request refused from its headers, or whose admission is pending. Refused: only
   * what the answer's contract is judged by is kept, and the answer goes once it is in. Pending:
   * at most EXACT_SNIFF_BYTES are read, then the socket waits for the key store. True: handled.
   */
  #holdBack(chunk: ArrayBuffer, isLast: boolean): boolean {
    const size = chunk.byteLength;
    if (this.#admitting === null) {
      // A body over EXACT_SNIFF_BYTES is judged by its first window (sampleOfPrefix): keep no more.
      const keep = this.contentLength > EXACT_SNIFF_BYTES ? SNIFF_WINDOW_BYTES : EXACT_SNIFF_BYTES;
      const take = Math.min(size, keep - this.#held);
      if (take > 0) {
        (this.#chunks ??= []).push(new Uint8Array(chunk.slice(0, take)));
        this.#held += take;
      }
      if (isLast || this.#held >= keep) this.#answerHeldRefusal(isLast && this.#held === this.#received);
      return true;
    }
    if (isLast) {
      // The whole body is in: it is read as usual and #complete waits for the admission.
      this.#held = 0;
      return false;
    }
    (this.#chunks ??= []).push(new Uint8Array(chunk.slice(0)));
    this.#held += size;
    if (this.#held >= EXACT_SNIFF_BYTES && !this.#paused) {
      this.#paused = true;
      this.res.pause();
    }
    return true;
  }

  /** The refusal answered from the held part of the body (all of it when `whole`). */
  #answerHeldRefusal(whole: boolean): void {
    const { error, retryAfterSeconds } = this.#refusal!;
    const chunks = this.#chunks ?? [];
    const total = this.contentLength >= 0 ? this.contentLength : this.#received;
    const sample = whole ? sampleOfChunks(chunks, this.#held) : sampleOfPrefix(sampleOfChunks(chunks, Math.min(this.#held, SNIFF_WINDOW_BYTES)).head, total);
    this.#chunks = null;
    this.#held = 0;
    if (this.#paused) {
      // Resumed only to be discarded: uWS drops the rest of a body whose answer is written.
      this.#paused = false;
      this.res.resume();
    }
    this.answerError(error, sample, retryAfterSeconds);
  }

  #refuseEarly(): boolean {
    if (this.#refusal !== null || this.#admitting !== null || this.route.refusalBeforeBody === undefined) return false;
    const early = this.route.refusalBeforeBody(this.contentLength);
    if (early === null) return false;
    this.answerError(early, sampleOfPrefix(this.#buffer!.subarray(0, this.#received), this.contentLength), 0);
    return true;
  }

  #assemble(): Uint8Array {
    if (this.#buffer !== null) return this.#buffer.subarray(0, this.#received);
    return this.#gather(new Uint8Array(this.#received));
  }

  #refuseOversize(lastChunk: Uint8Array): void {
    const readBefore = this.#received - lastChunk.byteLength;
    const sample = this.#buffer !== null ? sampleOf(this.#buffer.subarray(0, readBefore), false) : sampleOfChunks(this.#chunks ?? [], readBefore);
    const message = `The request body is over the ${this.maxBodyBytes}-byte limit.`;
    this.answerError(makeError('PAYLOAD_TOO_LARGE', message), sample, 0);
  }

  #complete(body: Uint8Array, owned: boolean): void {
    if (this.#admitting !== null) {
      const admitting = this.#admitting;
      this.#admitting = null;
      // uWS reclaims a body it lent once this callback returns: keep a copy across the wait.
      const kept = owned ? body : body.slice();
      void admitting.then(() => {
        if (!this.aborted) this.res.cork(() => this.#complete(kept, true));
      });
      return;
    }
    if (this.#refusal !== null) {
      const { error, retryAfterSeconds } = this.#refusal;
      this.#write(errorAnswer(this.ctx, this.route, error, sampleOf(body, false), retryAfterSeconds));
      return;
    }
    let answer: RouteAnswer | Promise<RouteAnswer>;
    try {
      answer = this.route.dispatch(this, body, owned);
    } catch (error) {
      // Routes are written not to throw; if one does, this request fails, not the process.
      answer = errorAnswer(this.ctx, this.route, INTERNAL, sampleOf(body, false), 0);
      answer.outcome.fault = describeFault(error);
    }
    if (answer instanceof Promise) answer.then((settled) => this.#answerLater(settled));
    else this.#write(answer);
  }

  #answerLater(answer: RouteAnswer): void {
    if (this.aborted) return;
    this.res.cork(() => this.#write(answer));
  }

  /**
   * Answers an error at once. The connection stays open even when the body is still arriving: the
   * rest is discarded as it comes (onData returns at once once finished). Closing instead, with
   * unread bytes in the socket, makes TCP reset the connection and the client never sees the answer.
   */
  answerError(error: RepairError, sample: BodySample | null, retryAfterSeconds: number): void {
    this.#write(errorAnswer(this.ctx, this.route, error, sample, retryAfterSeconds));
  }

  #write(answer: RouteAnswer): void {
    if (!this.claimAnswer()) return;
    this.#buffer = null;
    this.#chunks = null;
    if (this.chargedIp !== null && UNSERVED.has(answer.outcome.errorCode ?? '')) this.#giveBack(this.chargedIp);
    // While draining, answers close their connection so keep-alive clients reconnect elsewhere.
    // Paced: onAborted is registered (BodyRequest), so a large answer is written as the client reads.
    writeAnswer(this.res, answer.status, JSON_TYPE, answer.body, this.requestId, this.headers, this.ctx.lifecycle.draining, true);
    this.#record(answer, answer.execution);
    this.answered();
  }

  /** A request admitted but not served spends nothing: its count is given back, its headers say so. */
  #giveBack(clientIp: string): void {
    this.chargedIp = null;
    try {
      this.headers = this.ctx.admission.refund?.(this.route.name, clientIp) ?? this.headers;
    } catch (error) {
      this.ctx.logger.log('error', 'admission refund failed', { requestId: this.requestId, route: this.route.name, fault: describeFault(error) });
    }
  }

  #record(answer: RouteAnswer | null, execution: Execution): void {
    const outcome = answer?.outcome;
    if (outcome?.fault != null) {
      this.ctx.logger.log('error', 'repair failed', { requestId: this.requestId, route: this.route.name, fault: outcome.fault });
    }
    notifyObservers(this.ctx, {
      time: this.time,
      requestId: this.requestId,
      route: this.route.name,
      keyId: this.key?.id ?? null,
      accountId: this.key?.accountId ?? null,
      contract: outcome?.contract ?? null,
      status: answer?.status ?? 0,
      outcome: answer === null ? 'aborted' : (outcome!.errorCode ?? 'ok'),
      confidence: outcome?.confidence ?? null,
      repairCounts: outcome?.repairCounts ?? NO_COUNTS,
      inputBytes: outcome?.inputBytes ?? this.#received,
      latencyMs: performance.now() - this.#start,
      execution,
    });
  }
}

/** A route's error answer in the shape of the contract the body speaks (or the configured one). */
export function errorAnswer(
  ctx: HttpContext,
  route: JsonPostRoute,
  error: RepairError,
  sample: BodySample | null,
  retryAfterSeconds: number,
): RouteAnswer {
  const contract = contractOfSample(ctx.config.contract, sample);
  return refusalAnswer(contract, error, sample?.totalBytes ?? 0, route.demoMessage, retryAfterSeconds);
}

function admit(request: PostRequest, route: JsonPostRoute, ctx: HttpContext, res: HttpResponse, req: HttpRequest): void {
  if (route.requiresKey) {
    const auth = ctx.authentication.authenticate(req.getHeader('authorization'));
    // A key the store is still being asked about: keyed admission needs nothing more from `req`.
    if (auth instanceof Promise) request.admitLater(auth.then(async (settled) => applyDecision(request, await admitKeyed(request, route, ctx, settled))));
    else applyAdmission(request, admitKeyed(request, route, ctx, auth));
    return;
  }
  const { admission } = ctx;
  // Keyed requests are limited per key; reading and decoding the peer address costs several µs.
  const clientIp = admission.needsClientIp
    ? ctx.clientIp.resolveRequest(res, req)
    : '';
  const decision = admission.admit(route.name, undefined, clientIp);
  applyAdmission(request, decision instanceof Promise ? decision.then((settled) => charged(request, settled, clientIp)) : charged(request, decision, clientIp));
}

/** A keyless request the admission counted: remembered so that a request not served gives it back. */
function charged(request: PostRequest, decision: AdmissionDecision, clientIp: string): AdmissionDecision {
  if (decision.allowed && decision.headers !== null) request.chargedIp = clientIp;
  return decision;
}

/** The admission decision of an authenticated request, or the wait for it. */
function admitKeyed(request: PostRequest, route: JsonPostRoute, ctx: HttpContext, auth: AuthResult): AdmissionDecision | Promise<AdmissionDecision> {
  if (!auth.ok) return { allowed: false, error: auth.error, retryAfterSeconds: 0, headers: null };
  request.key = auth.key;
  return ctx.admission.admit(route.name, auth.key, '');
}

/** A decision that waits on a shared store is applied when it comes; the body is read meanwhile. */
function applyAdmission(request: PostRequest, decision: AdmissionDecision | Promise<AdmissionDecision>): void {
  if (decision instanceof Promise) request.admitLater(decision.then((settled) => applyDecision(request, settled)));
  else applyDecision(request, decision);
}

function applyDecision(request: PostRequest, decision: AdmissionDecision): void {
  request.headers = decision.headers;
  if (decision.allowed) request.warnings = decision.warnings;
  else request.refuse(decision.error, decision.retryAfterSeconds);
}

function admitSafely(request: PostRequest, route: JsonPostRoute, ctx: HttpContext, res: HttpResponse, req: HttpRequest): void {
  try {
    admit(request, route, ctx, res, req);
  } catch (error) {
    // A failing key store or admission hook refuses this request instead of crashing the thread.
    ctx.logger.log('error', 'admission failed', { requestId: request.requestId, route: route.name, fault: describeFault(error) });
    request.refuse(INTERNAL, 0);
  }
}

/** The uWS handler of one JSON POST route. Everything read from `req` is read synchronously here. */
export function jsonPostHandler(route: JsonPostRoute, ctx: HttpContext): (res: HttpResponse, req: HttpRequest) => void {
  const limit = route.maxBodyBytes ?? ctx.config.maxBodyBytes;
  return (res, req) => {
    const contentLength = contentLengthOf(req.getHeader('content-length'));
    const request = new PostRequest(res, route, ctx, requestIdFor(req.getHeader('x-request-id')), contentLength, limit);
    if (contentLength > limit) {
      // Answered before a byte of the body is read; uWS discards whatever of it still arrives. A
      // keyless route's allowance is looked up (and given back) so the answer carries its headers.
      if (!route.requiresKey) admitSafely(request, route, ctx, res, req);
      const message = `The request body is ${contentLength} bytes; the limit is ${limit}.`;
      // A shared allowance decides later: the answer waits for it, so what it counted is given back.
      request.afterAdmission(() => request.answerError(makeError('PAYLOAD_TOO_LARGE', message), null, 0));
      return;
    }
    admitSafely(request, route, ctx, res, req);
    res.onData((chunk, isLast) => request.onData(chunk, isLast));
  };
}

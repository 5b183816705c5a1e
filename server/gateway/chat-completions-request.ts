// One POST /v1/chat/completions: authenticated and admitted as every keyed request (tier, rate
// limit, quota), its body read against the body limit, sent upstream as it came, and answered —
// healed whole, or streamed through the StreamRewriter with backpressure: a client that reads
// slowly pauses the upstream read, so a stream holds at most one upstream chunk plus uWS's buffer.
// A client that goes away aborts the upstream request. Every refusal is in the OpenAI error shape.
// uWS rules (docs/design.md "uWS rules"): onAborted registered (BodyRequest); every write after an
// await inside res.cork(); nothing touches res after an abort.
import type { IncomingHttpHeaders } from 'node:http';
import { makeError } from '../contracts/error-codes.js';
import type { RepairError } from '../../engine/types.js';
import type { AdmissionDecision } from '../http/admission-hook.js';
import type { AuthResult, KeyRecord } from '../http/authentication-hook.js';
import { BodyRequest } from '../http/body-request.js';
import { notifyObservers, type HttpContext } from '../http/http-context.js';
import type { HttpResponse } from '../http/load-uws.js';
import { JSON_TYPE, statusLine, writeAnswer, type HeaderList } from '../http/response-writer.js';
import { describeFault, NO_COUNTS, type Execution } from '../observe/request-record.js';
import type { Confidence } from '../../engine/types.js';
import { planOf, type ChatPlan } from './chat-request.js';
import { healCompletion } from './heal-completion.js';
import { ReportBuilder } from './heal-report.js';
import { openAiError } from './openai-error.js';
import { SseParser } from './sse-parser.js';
import { frameEvent, StreamRewriter } from './stream-rewriter.js';
import { failureOf, type UpstreamClient, type UpstreamExchange } from './upstream-client.js';

export const ROUTE = 'chat_completions';
const INTERNAL = makeError('INTERNAL_ERROR');

export interface RequestHeaders {
  requestId: string;
  contentLength: number;
  authorization: string;
  minConfidence: Confidence | null;
  /** X-Upstream-Authorization when the operator allows callers their own upstream key, else null. */
  callerAuthorization: string | null;
}

interface WholeAnswer {
  status: number;
  type: string;
  retryAfter: string | null;
  plan: ChatPlan;
  chunks: Buffer[];
}

export class ChatCompletionsRequest extends BodyRequest {
  readonly #time = Date.now();
  readonly #start = performance.now();
  #exchange: UpstreamExchange | null = null;
  /** A whole (non-streamed) answer being received, or null. */
  #whole: WholeAnswer | null = null;
  /** While streaming: rewrites one upstream chunk and sends it (false: the client lags). */
  #rewrite: ((chunk: Buffer) => boolean) | null = null;
  /** While streaming: ends the stream, with the error that cut it or null. */
  #endStream: ((error: Error | null) => void) | null = null;
  #key: KeyRecord | undefined = undefined;
  #limitHeaders: HeaderList | null = null;
  /** null while admission is pending; then the refusal, or false when admitted. */
  #refusal: RepairError | false | null = null;
  #body: Buffer | null = null;
  #bodyBytes = 0;
  #execution: Execution = 'none';
  #confidence: Confidence | null = null;
  /** A stream is being written: its answer is claimed but not yet ended. */
  #streaming = false;

  constructor(res: HttpResponse, ctx: HttpContext, private readonly upstream: UpstreamClient, private readonly h: RequestHeaders) {
    super(res, ctx);
  }

  /** Called from the uWS handler: authentication and admission, and the body read meanwhile. */
  start(): void {
    this.readBody(this.ctx.config.maxBodyBytes, this.h.contentLength, (body) => {
      if (body === null) {
        this.#answerError(makeError('PAYLOAD_TOO_LARGE', `The request body is over the ${this.ctx.config.maxBodyBytes}-byte limit.`));
        return;
      }
      this.#body = body;
      this.#bodyBytes = body.byteLength;
      this.#proceed();
    });
    // The body's reader is attached first: uWS closes a connection answered with its body unread and no reader.
    try {
      const auth = this.ctx.authentication.authenticate(this.h.authorization);
      if (auth instanceof Promise) auth.then((a) => this.#admit(a), (e: unknown) => this.#failed(e));
      else this.#admit(auth);
    } catch (error) {
      this.#failed(error);
    }
  }

  #admit(auth: AuthResult): void {
    if (!auth.ok) {
      this.#decided({ allowed: false, error: auth.error, retryAfterSeconds: 0, headers: null });
      return;
    }
    this.#key = auth.key;
    const decision = this.ctx.admission.admit(ROUTE, auth.key, '');
    if (decision instanceof Promise) decision.then((d) => this.#decided(d), (e: unknown) => this.#failed(e));
    else this.#decided(decision);
  }

  #failed(error: unknown): void {
    this.ctx.logger.log('error', 'admission failed', { requestId: this.h.requestId, route: ROUTE, fault: describeFault(error) });
    this.#refusal = INTERNAL;
    this.#corked(() => this.#proceed());
  }

  #decided(decision: AdmissionDecision): void {
    this.#limitHeaders = decision.headers;
    this.#refusal = decision.allowed ? false : decision.error;
    this.#corked(() => this.#proceed());
  }

  /** Runs `then` inside a cork unless the client is gone (writes after an await must be corked). */
  #corked(then: () => void): void {
    if (!this.aborted && !this.finished) this.res.cork(then);
  }

  /** Goes on once both admission and the body are in: refusal answers need no body (it is discarded). */
  #proceed(): void {
    if (this.#refusal === null || this.finished) return;
    if (this.#refusal !== false) {
      this.#answerError(this.#refusal);
      return;
    }
    if (this.#body === null) return;
    const plan = planOf(this.#body);
    if ('code' in plan) {
      this.#answerError(plan);
      return;
    }
    this.#execution = 'inline'; // the call reaches the upstream: it counts once, whatever it streams
    const call = { body: this.#body, requestId: this.h.requestId, callerAuthorization: this.h.callerAuthorization };
    this.#body = null;
    this.#exchange = this.upstream.send(call, {
      started: (status, headers) => this.#started(status, headers, plan),
      piece: (chunk) => this.#piece(chunk),
      ended: () => this.#ended(),
      failed: (error) => this.#cut(error),
    });
  }

  protected override clientGone(): void {
    this.#body = null;
    this.#exchange?.abort(); // nobody pays for tokens nobody reads
    if (!this.#streaming) return;
    // A stream's answer was claimed when it began: its abort is recorded here, not by BodyRequest.
    this.#streaming = false;
    this.#record(200, 'aborted');
    this.answered();
  }

  protected override recordAbort(): void {
    this.#record(0, 'aborted');
  }

  /** No answer from the upstream (or a whole answer cut): the OpenAI-shaped 502 or 504. */
  #unreachable(error: unknown): void {
    if (this.aborted) return;
    const code = failureOf(error);
    this.ctx.logger.log('warn', 'upstream failed', { requestId: this.h.requestId, route: ROUTE, code, error: (error as Error)?.name ?? 'unknown' });
    this.#corked(() => this.#answerError(makeError(code)));
  }

  #started(status: number, headers: IncomingHttpHeaders, plan: ChatPlan): void {
    const type = String(headers['content-type'] ?? '');
    if (status === 200 && plan.stream && type.startsWith('text/event-stream')) {
      this.#beginStream(plan);
      return;
    }
    const retryAfter = headers['retry-after'];
    this.#whole = { status, type, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, plan, chunks: [] };
  }

  #piece(chunk: Buffer): boolean {
    if (this.#whole !== null) {
      this.#whole.chunks.push(chunk);
      return true;
    }
    return this.#rewrite === null ? true : this.#rewrite(chunk);
  }

  #ended(): void {
    if (this.#whole !== null) this.#answerWhole(this.#whole);
    else this.#endStream?.(null);
  }

  #cut(error: Error): void {
    if (this.#endStream !== null) this.#endStream(error);
    else this.#unreachable(error);
  }

  /** A whole answer: an upstream error passed on as it came, a completion healed. */
  #answerWhole(whole: WholeAnswer): void {
    if (this.aborted) return;
    const raw = Buffer.concat(whole.chunks).toString('utf8');
    const { status, type } = whole;
    if (status < 200 || status > 299) {
      const headers: (readonly [string, string])[] = [...(this.#limitHeaders ?? [])];
      if (whole.retryAfter !== null) headers.push(['Retry-After', whole.retryAfter]);
      this.#corked(() => this.#write(status, type || JSON_TYPE, raw, headers, 'UPSTREAM_ERROR'));
      return;
    }
    const builder = new ReportBuilder(this.h.minConfidence);
    let healed: string | null;
    try {
      healed = healCompletion(raw, whole.plan, builder);
    } catch (error) {
      // A bug in the healing fails this request, not the process.
      this.ctx.logger.log('error', 'healing failed', { requestId: this.h.requestId, route: ROUTE, fault: describeFault(error) });
      this.#corked(() => this.#answerError(INTERNAL));
      return;
    }
    if (healed === null) {
      // Not a completion object: passed on untouched, as the upstream meant it.
      this.#corked(() => this.#write(status, type || JSON_TYPE, raw, this.#limitHeaders, 'ok'));
      return;
    }
    this.#confidence = builder.healedParts > 0 ? builder.confidence : null;
    const headers: (readonly [string, string])[] = [...(this.#limitHeaders ?? []), ['X-Jsonmend-Confidence', builder.confidence]];
    if (!builder.meetsMinimum()) {
      const error = makeError('LOW_CONFIDENCE', `A healed part of the answer is ${builder.confidence} confidence, below the ${this.h.minConfidence} asked for in X-Jsonmend-Min-Confidence.`);
      const answer = openAiError(error, { jsonmend: builder.build() });
      this.#corked(() => this.#write(answer.status, JSON_TYPE, answer.body, headers, answer.errorCode));
      return;
    }
    this.#corked(() => this.#write(status, JSON_TYPE, healed, headers, 'ok'));
  }

  /** A streamed answer: events rewritten as they arrive, the upstream paused while the client lags. */
  #beginStream(plan: ChatPlan): void {
    if (!this.claimAnswer()) {
      this.#exchange?.abort();
      return;
    }
    this.#streaming = true;
    const parser = new SseParser();
    const rewriter = new StreamRewriter(plan, this.h.minConfidence);
    this.res.cork(() => {
      this.res.writeStatus(statusLine(200));
      this.res.writeHeader('X-Request-ID', this.h.requestId);
      this.res.writeHeader('Content-Type', 'text/event-stream; charset=utf-8');
      this.res.writeHeader('Cache-Control', 'no-cache');
      this.res.writeHeader('X-Content-Type-Options', 'nosniff');
      for (const [name, value] of this.#limitHeaders ?? []) this.res.writeHeader(name, value);
    });
    /** Writes `text`; false when the client lags (uWS holds it): the upstream read pauses until it drains. */
    const send = (text: string): boolean => {
      if (text === '' || this.aborted) return true;
      let flowing = true;
      this.res.cork(() => {
        if (this.res.write(text)) return;
        flowing = false;
        this.res.onWritable(() => {
          this.#exchange?.resume();
          return true;
        });
      });
      return flowing;
    };
    const end = (tail: string, outcome: string): void => {
      if (this.aborted || !this.#streaming) return;
      this.#streaming = false;
      this.#rewrite = null;
      this.#endStream = null;
      this.#confidence = rewriter.report.healedParts > 0 ? rewriter.report.confidence : null;
      this.res.cork(() => this.res.end(tail, this.ctx.lifecycle.draining));
      this.#record(200, outcome);
      this.answered();
    };
    this.#rewrite = (chunk) => {
      let out = '';
      try {
        for (const event of parser.push(chunk)) out += rewriter.rewrite(event);
      } catch (error) {
        // A bug in the rewriting fails this stream, not the process: an error event, then the end.
        this.ctx.logger.log('error', 'stream rewriting failed', { requestId: this.h.requestId, route: ROUTE, fault: describeFault(error) });
        this.#exchange?.abort();
        send(out);
        end(frameEvent('', openAiError(INTERNAL).body), 'INTERNAL_ERROR');
        return true;
      }
      return send(out);
    };
    this.#endStream = (error) => {
      if (this.aborted) return;
      if (error !== null) {
        // Cut mid-stream (a stall past UPSTREAM_TIMEOUT_MS, a reset): an error event the clients raise.
        const code = failureOf(error);
        end(frameEvent('', openAiError(makeError(code)).body), code);
        return;
      }
      let tail: string;
      try {
        tail = rewriter.done ? '' : rewriter.finish(); // an upstream that ended without [DONE]
      } catch (failure) {
        this.ctx.logger.log('error', 'stream rewriting failed', { requestId: this.h.requestId, route: ROUTE, fault: describeFault(failure) });
        end(frameEvent('', openAiError(INTERNAL).body), 'INTERNAL_ERROR');
        return;
      }
      end(tail, 'ok');
    };
  }

  #answerError(error: RepairError): void {
    const answer = openAiError(error);
    this.#write(answer.status, JSON_TYPE, answer.body, this.#limitHeaders, answer.errorCode);
  }

  #write(status: number, type: string, body: string, headers: HeaderList | null, outcome: string): void {
    if (!this.claimAnswer()) return;
    writeAnswer(this.res, status, type, body, this.h.requestId, headers, this.ctx.lifecycle.draining, true);
    this.#record(status, outcome);
    this.answered();
  }

  #record(status: number, outcome: string): void {
    notifyObservers(this.ctx, {
      time: this.#time,
      requestId: this.h.requestId,
      route: ROUTE,
      keyId: this.#key?.id ?? null,
      accountId: this.#key?.accountId ?? null,
      contract: null,
      status,
      outcome,
      confidence: this.#confidence,
      repairCounts: NO_COUNTS,
      inputBytes: this.#bodyBytes,
      latencyMs: performance.now() - this.#start,
      execution: outcome === 'aborted' ? 'none' : this.#execution,
    });
  }
}

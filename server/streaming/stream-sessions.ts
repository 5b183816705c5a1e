// start, push and finalize on the main thread: limits, ownership, clocks and sizes are decided
// here, synchronously; the chunk then goes to the session's worker and the worker's reply (already
// serialized in the request's contract) becomes the answer.
import { treeBytesEstimate } from '../../engine/stream.js';
import { randomBytes } from 'node:crypto';
import { makeError } from '../contracts/error-codes.js';
import { TIERS } from '../config/tiers.js';
import type { RepairError, Warning } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';
import type { KeyRecord } from '../accounts/key-store.js';
import type { PostRequest } from '../http/json-post.js';
import { PushRate, type PushRateSettings, type PushRefusal } from './push-rate.js';
import { answerOf, refusalAnswer, type RouteAnswer } from '../http/route-answer.js';
import { NO_COUNTS } from '../observe/request-record.js';
import { AccountWork, type GatedCall } from './account-work.js';
import { FINALIZE, OPEN, PUSH, type FinalizeMessage, type OpenMessage, type PushMessage, type WorkerReply } from './stream-protocol.js';
import type { FinalizeRequest, PushRequest, StartRequest, StreamEndpoint } from './stream-requests.js';
import { serializeCompactStart, serializeEnvelopeStart } from './stream-serializers.js';
import { SessionTable, StreamSession, tableKeyOf } from './session-table.js';
import type { StreamWorkers, WorkerCall } from './stream-workers.js';

/**
 * Set with REDIS_URL (server/streaming/forwarding/session-forwarder.ts): sessions of other nodes are reached
 * through their owner. Only consulted when a session is not in this node's table, so a node alone
 * (no Redis) never runs any of it.
 */
export interface StreamRemote {
  /** An envelope id naming this node: `<node id>.<128 random bits>`. */
  issueEnvelopeId(): string;
  /** Takes a compact id across nodes; false: it is open on another live node. */
  claim(keyId: string, sessionId: string): Promise<boolean>;
  /** A session of this node ended (its compact id is free again). */
  ended(session: StreamSession): void;
  /**
   * Whether this node still owns a session it holds: null when there is nothing to check (no stall
   * since it was last confirmed, and not a finalize), else the answer from Redis.
   */
  stillOwned(session: StreamSession, finalizing: boolean): Promise<boolean> | null;
  /** The owner's answer to a push or finalize of a session held elsewhere, or SESSION_NOT_FOUND. */
  forward(endpoint: 'push' | 'finalize', contract: Contract, keyId: string, sessionId: string, chunk: string, warnings: readonly Warning[] | null): Promise<RouteAnswer>;
}

/**
 * Vets a start's schema before a streaming worker compiles it (server/batch/pool-schema-compiler.ts
 * compiles it in the batch pool first): null when the session may open with it, else the refusal.
 */
export interface StartSchemaCheck {
  check(schema: unknown): RepairError | null | Promise<RepairError | null>;
}

const BACKOFF = 'Retry with exponential backoff (for example 100 ms, 200 ms, 400 ms, with jitter), or finalize an open session first.';
const NOT_FOUND = makeError('SESSION_NOT_FOUND');
const WORKER_LOST = makeError('SESSION_NOT_FOUND', 'The worker holding this streaming session stopped; the session is gone.');
const OPEN_LOST = makeError('SERVICE_UNAVAILABLE', 'The streaming session ended before it had opened (its worker stopped); start a new one.');
const INTERNAL = makeError('INTERNAL_ERROR', 'The streaming session failed unexpectedly and was ended.');

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** One request waiting for its session's worker; resolves the promise the HTTP layer awaits. */
class StreamCall implements WorkerCall, GatedCall {
  sentAt = 0;
  resolve: (answer: RouteAnswer) => void = ignore;
  readonly accountId: string;

  constructor(
    readonly owner: StreamSessions,
    readonly endpoint: StreamEndpoint,
    readonly contract: Contract,
    readonly session: StreamSession,
    readonly inputBytes: number,
    readonly message: OpenMessage | PushMessage | FinalizeMessage,
    /** Bytes of work for the account's bound (account-work.ts). */
    readonly cost: number,
  ) {
    this.accountId = session.accountId;
  }

  dispatch(): void {
    this.owner.dispatch(this);
  }

  settle(reply: WorkerReply | null, overran: boolean): void {
    this.owner.work.done(this);
    this.resolve(this.owner.answer(this, reply, overran));
  }
}

function settleLost(call: StreamCall): void {
  call.settle(null, false);
}

function ignore(): void {}

function waitFor(call: StreamCall): Promise<RouteAnswer> {
  return new Promise<RouteAnswer>((resolve) => {
    call.resolve = resolve;
  });
}

/** One account may hold this share of MAX_SESSIONS (at least one), whatever its tier, so no single client takes them all. */
export function accountShareOf(maxSessions: number): number {
  return Math.max(1, Math.ceil(maxSessions / 4));
}

export class StreamSessions {
  /** The bound on each account's work at the workers (account-work.ts). */
  readonly work: AccountWork;
  #nextHandle = 0;
  readonly #serverFull: RepairError;
  readonly #budgetFull: RepairError;
  readonly #overran: RepairError;
  /** Seconds a client refused for its account's session bound is told to wait: an idle session has expired by then. */
  readonly #accountRetrySeconds: number;
  readonly #accountShare: number;
  readonly #pushRate: PushRate;
  /** Set by the server (app.ts); null: schemas go straight to the session's worker. */
  schemaCheck: StartSchemaCheck | null = null;

  constructor(
    readonly table: SessionTable,
    readonly workers: StreamWorkers,
    readonly maxPayloadBytes: number,
    callTimeoutMs: number,
    readonly remote: StreamRemote | null = null,
    workerThreads = 1,
    pushRate: PushRateSettings = { sessionPerSecond: 200, sessionBurst: 400 },
  ) {
    this.#pushRate = new PushRate(pushRate);
    this.#serverFull = makeError('SERVICE_UNAVAILABLE', `The server holds its maximum of ${table.maxSessions} open streaming sessions.`, { suggestion: BACKOFF });
    this.#budgetFull = makeError('SERVICE_UNAVAILABLE', 'The server holds as many buffered streaming bytes as its memory allows; nothing was added.', { suggestion: BACKOFF });
    this.#accountRetrySeconds = Math.max(1, Math.ceil(table.ttlMs / 1000));
    this.#accountShare = accountShareOf(table.maxSessions);
    this.#overran = makeError('INTERNAL_ERROR', `The streaming worker did not answer within ${callTimeoutMs} ms and was stopped; its sessions are gone.`);
    // Two calls per worker thread keep every worker fed (the next call is there when one ends), and
    // one session's buffer of bytes: another tenant waits behind at most that much of this one's work.
    this.work = new AccountWork(2 * workerThreads, maxPayloadBytes);
  }

  /** Sends a call the account bound let through; a call whose worker died meanwhile is answered as lost. */
  dispatch(call: StreamCall): void {
    const { session } = call;
    if (!this.workers.isCurrent(session.slot, session.generation)) {
      queueMicrotask(() => settleLost(call));
      return;
    }
    // A finalize leaves the table when it goes to the worker: until then its bytes still count.
    if (call.endpoint === 'finalize') this.table.end(session, 'finalized');
    this.workers.call(session.slot, call.message, call);
  }

  /**
   * A schema is vetted first, where an overrun costs only this caller; the session's worker then
   * compiles it within what was measured, and no other tenant's sessions wait on an unknown cost.
   */
  start(request: PostRequest, contract: Contract, start: StartRequest): RouteAnswer | Promise<RouteAnswer> {
    if (start.schema === undefined || this.schemaCheck === null) return this.#startVetted(request, contract, start);
    const refused = this.schemaCheck.check(start.schema);
    if (refused instanceof Promise) {
      return refused.then((error) => error === null ? this.#startVetted(request, contract, start) : refusalAnswer(contract, error, 0));
    }
    return refused === null ? this.#startVetted(request, contract, start) : refusalAnswer(contract, refused, 0);
  }

  #startVetted(request: PostRequest, contract: Contract, start: StartRequest): RouteAnswer | Promise<RouteAnswer> {
    const key = request.key!;
    const now = performance.now();
    // Per account, by tier (the operator's own `unlimited` tier is bounded by the server total only).
    const tierLimit = TIERS[key.tier].streamSessions;
    const accountLimit = tierLimit === null ? Infinity : Math.min(tierLimit, this.#accountShare);
    const capacity = this.table.capacityFor(key.accountId, accountLimit);
    if (capacity === 'account_full') return this.#accountFull(request, contract, key.tier, accountLimit);
    if (capacity !== 'ok') return refusalAnswer(contract, capacity === 'server_full' ? this.#serverFull : this.#budgetFull, 0);
    if (contract === 'envelope') {
      // 128 random bits: an id nobody can guess, so holding one is proof of having started it.
      return this.#open(key, contract, this.remote?.issueEnvelopeId() ?? randomBytes(16).toString('base64url'), start);
    }
    const sessionId = start.sessionId;
    if (this.table.find(tableKeyOf(contract, key.id, sessionId), now) !== undefined) return this.#alreadyOpen(sessionId);
    if (this.remote === null) return this.#open(key, contract, sessionId, start);
    // Redis unreachable: the session still works through this node (docs/scaling.md).
    return this.remote.claim(key.id, sessionId).catch(() => true).then((claimed) => {
      if (!claimed || this.table.find(tableKeyOf(contract, key.id, sessionId), performance.now()) !== undefined) return this.#alreadyOpen(sessionId);
      return this.#open(key, contract, sessionId, start);
    });
  }

  #alreadyOpen(sessionId: string): RouteAnswer {
    return refusalAnswer('compact', makeError('INVALID_REQUEST', `A streaming session with sessionId "${sessionId}" is already open; use a new UUID.`), 0);
  }

  #open(key: KeyRecord, contract: Contract, sessionId: string, start: StartRequest): Promise<RouteAnswer> {
    const { slot, generation } = this.workers.assign();
    const session = new StreamSession(tableKeyOf(contract, key.id, sessionId), key.id, key.accountId, contract, sessionId, slot, generation, ++this.#nextHandle);
    session.accountPushRate = TIERS[key.tier].streamPushesPerSecond;
    session.preview = start.preview ?? 'complete';
    this.table.add(session, performance.now());
    const message: OpenMessage = { op: OPEN, id: 0, handle: session.handle, mode: start.mode, schema: start.schema, echoBuffer: start.echoBuffer, preview: start.preview };
    const call = new StreamCall(this, 'start', contract, session, 0, message, 0);
    const answer = waitFor(call);
    this.work.submit(call);
    return answer;
  }

  /** `forwarded`: sent by another node (never forwarded again). `request`: gets a refusal's Retry-After headers. */
  push(keyId: string, contract: Contract, push: PushRequest, forwarded = false, request: PostRequest | null = null, checked = false): RouteAnswer | Promise<RouteAnswer> {
    const { chunk } = push;
    const now = performance.now();
    const session = this.#live(tableKeyOf(contract, keyId, push.sessionId), now);
    if (session === undefined) {
      if (this.remote !== null && !forwarded) return this.remote.forward('push', contract, keyId, push.sessionId, chunk, null);
      return refusalAnswer(contract, NOT_FOUND, Buffer.byteLength(chunk, 'utf8'));
    }
    const check = checked || this.remote === null ? null : this.remote.stillOwned(session, false);
    if (check !== null) {
      return check.then((owned) => owned
        ? this.push(keyId, contract, push, forwarded, request, true)
        : this.#lostWhileStalled(session, () => this.push(keyId, contract, push, forwarded, request, true)));
    }
    const chunkBytes = Buffer.byteLength(chunk, 'utf8');
    // Before anything is counted: a refused push leaves the session as it was, so it can be sent again.
    const tooFast = this.#pushRate.admit(session, session.accountId, session.accountPushRate, now);
    if (tooFast !== null) return this.#pushTooFast(request, contract, session, tooFast, chunkBytes);
    if (chunkBytes > this.maxPayloadBytes) {
      // Refused whole: nothing was added, so the session carries on.
      const message = `The chunk is ${chunkBytes} bytes of UTF-8; the limit is ${this.maxPayloadBytes}.`;
      return refusalAnswer(contract, makeError('PAYLOAD_TOO_LARGE', message), chunkBytes);
    }
    // A surrogate pair split across pushes is one 4-byte character, not two 3-byte replacements.
    const joinsPair = session.pendingHighSurrogate && chunk.length > 0 && isLowSurrogate(chunk.charCodeAt(0));
    const buffered = session.bufferedBytes + chunkBytes - (joinsPair ? 2 : 0);
    if (buffered > this.maxPayloadBytes) {
      this.table.end(session, 'terminated');
      const message = `This chunk would take the session buffer to ${buffered} bytes, over the ${this.maxPayloadBytes}-byte limit; the session was terminated.`;
      return refusalAnswer(contract, makeError('BUFFER_SIZE_EXCEEDED', message, { suggestion: 'Start a new session; send smaller documents.' }), chunkBytes);
    }
    // What the session will hold in its worker (its text, and the parser's and preview's trees:
    // up to ~50 bytes a byte on `[{},{},…`) must fit in what all sessions may hold: refused whole,
    // the session carries on.
    const held = session.heldBytes + (buffered - session.bufferedBytes) + treeBytesEstimate(chunk, session.preview);
    if (held > session.heldBytes && !this.table.fits(held - session.heldBytes)) {
      return refusalAnswer(contract, this.#budgetFull, chunkBytes);
    }
    this.workers.grew(session.slot, session.generation, buffered - session.bufferedBytes);
    this.table.setBuffered(session, buffered, held);
    if (chunk.length > 0) session.pendingHighSurrogate = isHighSurrogate(chunk.charCodeAt(chunk.length - 1));
    this.table.touch(session, now);
    const message: PushMessage = {
      op: PUSH, id: 0, handle: session.handle, chunk, contract, sessionId: push.sessionId, bufferedBytes: buffered, totalReceived: buffered,
    };
    const call = new StreamCall(this, 'push', contract, session, chunkBytes, message, chunkBytes);
    const answer = waitFor(call);
    this.work.submit(call);
    return answer;
  }

  /**
   * The account's own bound, not the server's capacity: RATE_LIMIT_EXCEEDED (recoverable; compact
   * HTTP 429), like its per-minute limit. Finalizing one of its sessions frees a place at once.
   */
  #accountFull(request: PostRequest, contract: Contract, tier: string, limit: number): RouteAnswer {
    const retry = this.#accountRetrySeconds;
    const bound = limit < this.#accountShare ? `the most its ${tier} tier allows` : 'the most one account may hold on this server';
    const error = makeError('RATE_LIMIT_EXCEEDED', `This account holds ${limit} open streaming sessions, ${bound}.`, {
      suggestion: `Finalize a session you no longer need (its place is free at once), or retry in ${retry} s, when an idle one has expired.`,
    });
    request.headers = [...(request.headers ?? []), ['Retry-After', String(retry)]];
    return refusalAnswer(contract, error, 0, null, retry);
  }

  /**
   * Pushes past the session's or the account's push rate: RATE_LIMIT_EXCEEDED (recoverable, compact
   * HTTP 429), nothing added. The wait is milliseconds, so besides Retry-After (whole seconds, at
   * least 1) the answer carries Retry-After-Ms, which the client reads first.
   */
  #pushTooFast(request: PostRequest | null, contract: Contract, session: StreamSession, refusal: PushRefusal, chunkBytes: number): RouteAnswer {
    const waitMs = Math.ceil(refusal.waitMs);
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const { sessionPerSecond, sessionBurst } = this.#pushRate.settings;
    const message = refusal.scope === 'session'
      ? `This session pushes faster than ${sessionPerSecond} per second (bursts of ${sessionBurst}); nothing was added. Retry in ${waitMs} ms.`
      : `This account's streaming sessions together push faster than its tier's ${session.accountPushRate} per second; nothing was added. Retry in ${waitMs} ms.`;
    const error = makeError('RATE_LIMIT_EXCEEDED', message, { suggestion: 'Send the same chunk again after the wait, or join several tokens into one push.' });
    if (request !== null) request.headers = [...(request.headers ?? []), ['Retry-After', String(seconds)], ['Retry-After-Ms', String(waitMs)]];
    return refusalAnswer(contract, error, chunkBytes, null, seconds);
  }

  finalize(keyId: string, contract: Contract, finalize: FinalizeRequest, warnings: readonly Warning[] | null, forwarded = false, checked = false): RouteAnswer | Promise<RouteAnswer> {
    const session = this.#live(tableKeyOf(contract, keyId, finalize.sessionId), performance.now());
    if (session === undefined) {
      if (this.remote !== null && !forwarded) return this.remote.forward('finalize', contract, keyId, finalize.sessionId, '', warnings);
      return refusalAnswer(contract, NOT_FOUND, 0);
    }
    const check = checked || this.remote === null ? null : this.remote.stillOwned(session, true);
    if (check !== null) {
      return check.then((owned) => owned
        ? this.finalize(keyId, contract, finalize, warnings, forwarded, true)
        : this.#lostWhileStalled(session, () => this.finalize(keyId, contract, finalize, warnings, forwarded, true)));
    }
    // Finalizing from now on: a second finalize, or a push racing this one, is not found. It leaves
    // the table when it goes to the worker (dispatch), which may wait for the account's earlier work.
    session.finalizing = true;
    const message: FinalizeMessage = { op: FINALIZE, id: 0, handle: session.handle, contract, warnings };
    const call = new StreamCall(this, 'finalize', contract, session, session.bufferedBytes, message, session.bufferedBytes);
    const answer = waitFor(call);
    this.work.submit(call);
    return answer;
  }

  /**
   * Another node took this session for lost while this node was frozen (stillOwned said no): this
   * copy is dropped, never finalized, and the request goes where the session now is — through
   * `again`, which finds no local session: forwarded to the node that opened the compact id anew,
   * or SESSION_NOT_FOUND (recoverable) for a session given up.
   */
  #lostWhileStalled(session: StreamSession, again: () => RouteAnswer | Promise<RouteAnswer>): RouteAnswer | Promise<RouteAnswer> {
    if (this.table.find(session.tableKey, performance.now()) === session) this.table.end(session, 'failed');
    return again();
  }

  /** Drops a session this node holds, if it does (peer-route.ts: a forward that arrived too late). */
  giveUp(keyId: string, contract: Contract, sessionId: string): void {
    const session = this.#live(tableKeyOf(contract, keyId, sessionId), performance.now());
    if (session !== undefined) this.table.end(session, 'failed');
  }

  /** The session under `tableKey`, unless it is gone, expired or already being finalized. */
  #live(tableKey: string, now: number): StreamSession | undefined {
    const session = this.table.find(tableKey, now);
    return session === undefined || session.finalizing ? undefined : session;
  }

  /** The worker's reply (or its death) as the HTTP answer. */
  answer(call: StreamCall, reply: WorkerReply | null, overran: boolean): RouteAnswer {
    const { contract, session, inputBytes } = call;
    if (reply === null) {
      if (overran) return refusalAnswer(contract, this.#overran, inputBytes);
      return refusalAnswer(contract, call.endpoint === 'start' ? OPEN_LOST : WORKER_LOST, inputBytes);
    }
    if (reply.gone) {
      this.table.end(session, 'failed');
      return refusalAnswer(contract, NOT_FOUND, inputBytes);
    }
    if (reply.fault !== null || reply.error !== null) {
      this.table.end(session, 'failed');
      const failed = refusalAnswer(contract, reply.error ?? INTERNAL, inputBytes);
      failed.outcome.fault = reply.fault;
      return failed;
    }
    if (call.endpoint === 'start') {
      if (!this.table.opened(session, performance.now())) return refusalAnswer(contract, OPEN_LOST, 0);
      const expiresAtMs = Date.now() + this.table.ttlMs;
      const body = contract === 'envelope'
        ? serializeEnvelopeStart({ session_id: session.sessionId, expires_at: expiresAtMs })
        : serializeCompactStart({ sessionId: session.sessionId, expiresAt: new Date(expiresAtMs).toISOString() });
      const started = answerOf(contract, 200, body, null, 0);
      started.execution = 'stream';
      return started;
    }
    const answer = answerOf(contract, 200, reply.body!, reply.errorCode, inputBytes);
    answer.execution = 'stream';
    if (call.endpoint === 'finalize') {
      answer.outcome.confidence = reply.confidence as RouteAnswer['outcome']['confidence'];
      answer.outcome.repairCounts = reply.repairCounts ?? NO_COUNTS;
    }
    return answer;
  }
}

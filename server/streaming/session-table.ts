// What the main thread knows of each streaming session: its owner, its worker, its clock and its
// sizes. The buffer and parser live in the worker. Sessions are found by contract, key and id, so
// another key's id (or the other contract's) is simply not there: SESSION_NOT_FOUND. The table also
// keeps the bounds: open sessions in total and per account, and the bytes all buffers hold
// together against the buffer budget.
import type { PreviewMode } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';
import { LocalAccountSessionCounts, type AccountSessionCounts } from './account-sessions.js';

/** Why a session left the table (a bounded metrics label). */
export const END_REASONS = ['finalized', 'expired', 'terminated', 'worker_lost', 'failed'] as const;
export type EndReason = (typeof END_REASONS)[number];

export class StreamSession {
  /** Monotonic ms (performance.now()) after which the session is expired. */
  expiresAt = 0;
  /** UTF-8 bytes of everything pushed (the buffer is never trimmed, so also the buffer's size). */
  bufferedBytes = 0;
  /**
   * What the session holds in its worker, estimated: its buffer's bytes plus the parser's value and
   * the preview's tree (engine treeBytesEstimate; up to ~45 bytes a byte): counted against the budget.
   */
  heldBytes = 0;
  /** The session's preview mode, which the estimate depends on. */
  preview: PreviewMode = 'complete';
  /** Until the worker has opened it: its clock has not started (a booting worker is no client's fault). */
  opening = true;
  /** The last chunk ended with a high surrogate, which a low one opening the next chunk completes. */
  pendingHighSurrogate = false;
  /** Its finalize is waiting for the account's earlier work: no longer found, still counted. */
  finalizing = false;
  /** Its push bucket (push-rate.ts): the theoretical arrival time of its next push, performance.now() ms. */
  pushTat = 0;
  /** Its account's pushes per second on this node, by tier (null: only the session's own rate). */
  accountPushRate: number | null = null;
  /** This node's stall count when its ownership was last confirmed (session-forwarder.ts stillOwned). */
  checkedStalls = 0;

  constructor(
    readonly tableKey: string,
    readonly keyId: string,
    /** Whose session bound it counts against (KeyRecord.accountId). */
    readonly accountId: string,
    readonly contract: Contract,
    /** The id the client knows, as it sent it (compact) or as issued (envelope). */
    readonly sessionId: string,
    readonly slot: number,
    readonly generation: number,
    /** The worker's name for it. */
    readonly handle: number,
  ) {}
}

export type Capacity = 'ok' | 'account_full' | 'server_full' | 'budget_full';

export function tableKeyOf(contract: Contract, keyId: string, sessionId: string): string {
  // UUIDs compare case-insensitively; issued envelope ids are matched exactly.
  return contract === 'envelope' ? `e${keyId}:${sessionId}` : `c${keyId}:${sessionId.toLowerCase()}`;
}

export class SessionTable {
  /**
   * Kept in expiry order, so a sweep stops at the first live session: every session expires TTL
   * after its key time (creation, or for the envelope its last activity), and a touched session is
   * re-inserted at the end, where the newest key times are.
   */
  readonly #sessions = new Map<string, StreamSession>();
  readonly ended = new Float64Array(END_REASONS.length);
  started = 0;
  /** UTF-8 bytes buffered by all open sessions together. */
  bufferedTotal = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxSessions: number,
    /** Bytes all sessions may buffer together (STREAM_BUFFER_BUDGET_BYTES). */
    readonly bufferBudget: number,
    /** Called for every session that leaves, after it is gone from the table. */
    private readonly onEnd: (session: StreamSession, reason: EndReason) => void,
    readonly perAccount: AccountSessionCounts = new LocalAccountSessionCounts(),
  ) {}

  get size(): number {
    return this.#sessions.size;
  }

  /** Whether an account holding at most `accountLimit` sessions may open one more. */
  capacityFor(accountId: string, accountLimit: number): Capacity {
    if (this.perAccount.count(accountId) >= accountLimit) return 'account_full';
    if (this.#sessions.size >= this.maxSessions) return 'server_full';
    return this.bufferedTotal >= this.bufferBudget ? 'budget_full' : 'ok';
  }

  /** Whether `bytes` more fit in the buffer budget. */
  fits(bytes: number): boolean {
    return this.bufferedTotal + bytes <= this.bufferBudget;
  }

  /** The session's buffer is now `bytes` long, and it holds `held` bytes in its worker (counted against the budget). */
  setBuffered(session: StreamSession, bytes: number, held = bytes): void {
    this.bufferedTotal += held - session.heldBytes;
    session.bufferedBytes = bytes;
    session.heldBytes = held;
  }

  has(tableKey: string): boolean {
    return this.#sessions.has(tableKey);
  }

  add(session: StreamSession, now: number): void {
    session.expiresAt = now + this.ttlMs;
    this.#sessions.set(session.tableKey, session);
    this.perAccount.opened(session.accountId);
    this.started++;
  }

  /** The live session under this key, or undefined; an expired one is ended on the way. */
  find(tableKey: string, now: number): StreamSession | undefined {
    const session = this.#sessions.get(tableKey);
    if (session === undefined) return undefined;
    if (now >= session.expiresAt && !session.opening) {
      this.end(session, 'expired');
      return undefined;
    }
    return session;
  }

  /**
   * The worker has opened the session: its clock starts now, not when start arrived (a worker
   * still booting must not eat a short TTL). False when it ended meanwhile (its worker died).
   */
  opened(session: StreamSession, now: number): boolean {
    if (this.#sessions.get(session.tableKey) !== session) return false;
    session.opening = false;
    session.expiresAt = now + this.ttlMs;
    this.#sessions.delete(session.tableKey);
    this.#sessions.set(session.tableKey, session);
    return true;
  }

  /** Envelope sessions live TTL past their last activity; compact ones TTL past creation (spec). */
  touch(session: StreamSession, now: number): void {
    if (session.contract !== 'envelope') return;
    session.expiresAt = now + this.ttlMs;
    this.#sessions.delete(session.tableKey);
    this.#sessions.set(session.tableKey, session);
  }

  /** Removes the session if it is still the one under its key; idempotent. */
  end(session: StreamSession, reason: EndReason): void {
    if (this.#sessions.get(session.tableKey) !== session) return;
    this.#sessions.delete(session.tableKey);
    this.perAccount.closed(session.accountId);
    this.bufferedTotal -= session.heldBytes;
    this.ended[END_REASONS.indexOf(reason)]!++;
    this.onEnd(session, reason);
  }

  /** Ends every expired session; costs the number ended (plus any still opening), not the table size. */
  sweep(now: number): void {
    for (const session of this.#sessions.values()) {
      if (session.opening) continue;
      if (now < session.expiresAt) return;
      this.end(session, 'expired');
    }
  }

  /** A worker died: its sessions died with it. */
  endAllOn(slot: number, generation: number): void {
    for (const session of [...this.#sessions.values()]) {
      if (session.slot === slot && session.generation === generation) this.end(session, 'worker_lost');
    }
  }
}

// A node's side of sessions that follow their owner (docs/scaling.md "How forwarding works"): the
// node that answers `start` owns the session; a push or finalize that reaches another node is sent
// to the owner's PEER_URL and the owner's answer is passed back unchanged. Envelope ids name their
// owner (`<node id>.<22 base64url characters>`); compact ids are the client's UUIDs, so their owner is
// read from the session directory in Redis — or, while the directory cannot be trusted (Redis away,
// or back empty and not yet rewritten), asked of every live node. An owner that is gone (out of the
// node registry, refusing connections, or silent past the forward timeout) makes the request
// SESSION_NOT_FOUND, recoverable.
import { randomBytes } from 'node:crypto';
import { makeError } from '../../contracts/error-codes.js';
import type { Warning } from '../../../engine/types.js';
import type { Contract } from '../../contracts/contract.js';
import { answerOf, refusalAnswer, type RouteAnswer } from '../../http/route-answer.js';
import type { AnswerOutcome, Execution } from '../../observe/request-record.js';
import { tableKeyOf, type StreamSession } from '../session-table.js';
import type { StreamRemote } from '../stream-sessions.js';
import type { NodeRegistry } from './node-registry.js';
import type { PeerClient, PeerReply } from './peer-client.js';
import type { PeerFields } from './peer-signature.js';
import type { SessionDirectory } from './session-directory.js';

const NOT_FOUND = makeError('SESSION_NOT_FOUND');
const OWNER_GONE = makeError('SESSION_NOT_FOUND', 'The node holding this streaming session is gone; the session is gone with it.');
/** An envelope id this cluster issued: the owner's NODE_ID, a dot, 16 random bytes in base64url. */
const ISSUED_ID = /^([A-Za-z0-9_-]{1,32})\.[A-Za-z0-9_-]{22}$/;

/** What a forward came to, for /metrics (a fixed list of labels). */
export const FORWARD_RESULTS = ['answered', 'owner_gone', 'unreachable', 'refused_by_owner'] as const;

/** The outcome fields an owner sends back with its answer (PEER_HEADERS.outcome). */
export interface PeerOutcome {
  errorCode: string | null;
  confidence: string | null;
  repairCounts: Record<string, number>;
  inputBytes: number;
  fault: string | null;
  execution: Execution;
}

/** An owner the directory cannot name right now (Redis away, or just back empty): asked of every live node. */
const ANY = '*';

export class SessionForwarder implements StreamRemote {
  readonly results = new Float64Array(FORWARD_RESULTS.length);
  /** This node's open compact sessions, written to the directory again after Redis lost them. */
  readonly #open = new Map<string, readonly [string, string]>();

  constructor(
    readonly nodeId: string,
    /** A chunk over this is refused here, as its owner would: the peer endpoint takes no larger one. */
    private readonly maxPayloadBytes: number,
    private readonly registry: NodeRegistry,
    private readonly directory: SessionDirectory,
    private readonly client: PeerClient,
    private readonly onRefused: (owner: string, status: number) => void,
  ) {}

  issueEnvelopeId(): string {
    return `${this.nodeId}.${randomBytes(16).toString('base64url')}`;
  }

  /**
   * Takes a compact id for this node. While the directory cannot be trusted (Redis away, or back
   * empty and not yet written again by every node) every live node is asked whether it holds the id,
   * so one id is never open on two nodes.
   */
  async claim(keyId: string, sessionId: string): Promise<boolean> {
    let claimed: boolean | null;
    let trusted = false;
    try {
      const answer = await this.directory.claim(keyId, sessionId);
      claimed = answer.claimed;
      trusted = this.registry.trusts(answer.epoch, answer.ageMs);
    } catch {
      claimed = null; // Redis away: written when it answers again (restore)
    }
    if (claimed === false) return false;
    if (!trusted && await this.#heldElsewhere(keyId, sessionId)) {
      if (claimed === true) this.directory.release(keyId, sessionId);
      return false;
    }
    this.#open.set(openKey(keyId, sessionId), [keyId, sessionId]);
    return true;
  }

  ended(session: StreamSession): void {
    if (session.contract !== 'compact') return;
    this.#open.delete(openKey(session.keyId, session.sessionId));
    this.directory.release(session.keyId, session.sessionId);
  }

  /**
   * A frozen owner is taken for gone by the other nodes (docs/scaling.md "A node that stalls"): they
   * answer its sessions' pushes SESSION_NOT_FOUND, mark those sessions gone, and may open its compact
   * ids anew. So before a finalize, and before any push after this node stalled, the owner asks Redis
   * whether the session is still its own. One round trip a finalize; none a push on a node that has
   * not stalled. Redis unreachable: owned (no other node could have claimed it through Redis either).
   */
  stillOwned(session: StreamSession, finalizing: boolean): Promise<boolean> | null {
    const stalls = this.registry.stalls();
    if (!finalizing && session.checkedStalls === stalls) return null;
    const compact = session.contract === 'compact' ? { keyId: session.keyId, uuid: session.sessionId } : null;
    return this.directory.stillOwned(session.tableKey, compact).then((owned) => {
      if (owned) session.checkedStalls = stalls;
      return owned;
    }, () => true);
  }

  /** Redis answers again, or came back empty: this node's entries are written where missing. */
  restore(): Promise<boolean> {
    return this.directory.restore(this.#open.values());
  }

  /** Never rejects: whatever the registry, the owner or the network do, the answer is the owner's or SESSION_NOT_FOUND. */
  async forward(
    endpoint: 'push' | 'finalize', contract: Contract, keyId: string, sessionId: string, chunk: string, warnings: readonly Warning[] | null,
  ): Promise<RouteAnswer> {
    const inputBytes = Buffer.byteLength(chunk, 'utf8');
    try {
      return await this.#forward(endpoint, contract, keyId, sessionId, chunk, warnings, inputBytes);
    } catch {
      return this.#gone(contract, 2, inputBytes);
    }
  }

  async #forward(
    endpoint: 'push' | 'finalize', contract: Contract, keyId: string, sessionId: string, chunk: string, warnings: readonly Warning[] | null, inputBytes: number,
  ): Promise<RouteAnswer> {
    const owner = await this.#ownerOf(contract, keyId, sessionId);
    // Not issued by this cluster, never opened, or ours and already ended: simply not found.
    if (owner === null || owner === this.nodeId) return refusalAnswer(contract, NOT_FOUND, inputBytes);
    if (inputBytes > this.maxPayloadBytes) {
      // Refused whole, as the owner refuses it: the session carries on.
      const message = `The chunk is ${inputBytes} bytes of UTF-8; the limit is ${this.maxPayloadBytes}.`;
      return refusalAnswer(contract, makeError('PAYLOAD_TOO_LARGE', message), inputBytes);
    }
    const fields: PeerFields = {
      endpoint,
      contract,
      keyId: encodeURIComponent(keyId),
      sessionId: encodeURIComponent(sessionId),
      warnings: warnings === null || warnings.length === 0 ? '' : encodeURIComponent(JSON.stringify(warnings)),
    };
    // UTF-16 code units as they are: a chunk ending inside a surrogate pair arrives intact.
    const body = Buffer.from(chunk, 'utf16le');
    if (owner === ANY) return this.#askEveryNode(fields, body, contract, inputBytes);
    const peerUrl = this.registry.peerUrlOf(owner);
    if (peerUrl === undefined) {
      await this.#markGone(contract, keyId, sessionId);
      return this.#gone(contract, 1, inputBytes);
    }
    const reply = await this.#send(owner, peerUrl, fields, body);
    // No answer: the owner may only be frozen and act on this later. Marked before the client hears
    // SESSION_NOT_FOUND, so the owner, once awake, drops the session instead of finalizing it
    // without this chunk.
    if (reply === null) await this.#markGone(contract, keyId, sessionId);
    return this.#answerOf(owner, reply, contract, inputBytes);
  }

  /** Best effort: with Redis away the owner cannot be told, and cannot be taken over either. */
  #markGone(contract: Contract, keyId: string, sessionId: string): Promise<void> {
    return this.directory.markGone(tableKeyOf(contract, keyId, sessionId)).catch(() => {});
  }

  #send(owner: string, peerUrl: string, fields: PeerFields, body: Buffer): Promise<PeerReply | null> {
    return this.client.send(peerUrl, fields, body, () => this.registry.peerUrlOf(owner) !== undefined);
  }

  /** The owner's answer as this node's, or SESSION_NOT_FOUND when there is none to pass on. */
  #answerOf(owner: string, reply: PeerReply | null, contract: Contract, inputBytes: number): RouteAnswer {
    if (reply === null) return this.#gone(contract, 2, inputBytes);
    // The owner answers every forward it accepts with 200 (errors included); anything else is a
    // refusal of the forward itself, a CLUSTER_SECRET that differs between nodes: never shown as the
    // owner's answer (it would read as the client's own key being refused).
    if (reply.status !== 200) {
      this.onRefused(owner, reply.status);
      return this.#gone(contract, 3, inputBytes);
    }
    const outcome = outcomeOf(reply);
    // Not an owner's answer (every owner sends its outcome): an address that is not a node.
    if (outcome === null) return this.#gone(contract, 2, inputBytes);
    this.results[0]!++;
    const answer = answerOf(contract, reply.status, reply.body, outcome.errorCode ?? null, Number(outcome.inputBytes) || inputBytes);
    const fields: AnswerOutcome = answer.outcome;
    fields.confidence = (outcome.confidence ?? null) as AnswerOutcome['confidence'];
    fields.repairCounts = outcome.repairCounts ?? {};
    fields.fault = outcome.fault ?? null;
    answer.execution = outcome.execution ?? 'stream';
    return answer;
  }

  /**
   * The owner unknown: the request goes to every other live node at once. Only the node holding the
   * session acts on it (the others find nothing under its key and id, and change nothing); its
   * answer is the one passed on.
   */
  async #askEveryNode(fields: PeerFields, body: Buffer, contract: Contract, inputBytes: number): Promise<RouteAnswer> {
    const others = this.registry.liveIds().filter((id) => id !== this.nodeId);
    const replies = await Promise.all(others.map((id) => {
      const peerUrl = this.registry.peerUrlOf(id);
      return peerUrl === undefined ? null : this.#send(id, peerUrl, fields, body);
    }));
    for (let i = 0; i < others.length; i++) {
      const reply = replies[i]!;
      if (reply?.status === 200 && outcomeOf(reply)?.errorCode !== 'SESSION_NOT_FOUND') return this.#answerOf(others[i]!, reply, contract, inputBytes);
    }
    return refusalAnswer(contract, NOT_FOUND, inputBytes);
  }

  /** Whether another live node holds this compact id (asked of each; one that does not answer holds nothing reachable). */
  async #heldElsewhere(keyId: string, sessionId: string): Promise<boolean> {
    const fields: PeerFields = { endpoint: 'hold', contract: 'compact', keyId: encodeURIComponent(keyId), sessionId: encodeURIComponent(sessionId), warnings: '' };
    const others = this.registry.liveIds().filter((id) => id !== this.nodeId);
    const replies = await Promise.all(others.map((id) => {
      const peerUrl = this.registry.peerUrlOf(id);
      return peerUrl === undefined ? null : this.#send(id, peerUrl, fields, EMPTY);
    }));
    return replies.some((reply) => reply?.status === 200 && outcomeOf(reply) !== null && outcomeOf(reply)!.errorCode === null);
  }

  async #ownerOf(contract: Contract, keyId: string, sessionId: string): Promise<string | null> {
    if (contract === 'envelope') return ISSUED_ID.exec(sessionId)?.[1] ?? null;
    try {
      const { owner, epoch, ageMs } = await this.directory.ownerOf(keyId, sessionId);
      // Missing while the directory cannot be trusted: perhaps only not written again yet.
      return owner === null && !this.registry.trusts(epoch, ageMs) ? ANY : owner;
    } catch {
      return ANY; // Redis unreachable: whoever holds it answers
    }
  }

  #gone(contract: Contract, result: number, inputBytes: number): RouteAnswer {
    this.results[result]!++;
    return refusalAnswer(contract, OWNER_GONE, inputBytes);
  }
}

const EMPTY = Buffer.alloc(0);
const openKey = (keyId: string, sessionId: string): string => `${keyId}\n${sessionId.toLowerCase()}`;

function outcomeOf(reply: PeerReply): PeerOutcome | null {
  try {
    const outcome = JSON.parse(reply.outcome) as PeerOutcome;
    return typeof outcome === 'object' && outcome !== null ? outcome : null;
  } catch {
    return null;
  }
}

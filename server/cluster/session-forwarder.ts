// A node's side of sessions that follow their owner (docs/scaling.md "How forwarding works"): the
// node that answers `start` owns the session; a push or finalize that reaches another node is sent
// to the owner's PEER_URL and the owner's answer is passed back unchanged. Envelope ids name their
// owner (`<node id>.<22 base64url characters>`); compact ids are the client's UUIDs, so their owner is
// read from the session directory in Redis. An owner that is gone (out of the node registry, refusing
// connections, or silent past the forward timeout) makes the request SESSION_NOT_FOUND, recoverable.
import { randomBytes } from 'node:crypto';
import { makeError } from '../contracts/error-codes.js';
import type { Warning } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';
import { answerOf, refusalAnswer, type RouteAnswer } from '../http/json-post.js';
import type { AnswerOutcome, Execution } from '../observe/request-record.js';
import type { StreamSession } from '../streaming/session-table.js';
import type { StreamRemote } from '../streaming/stream-sessions.js';
import type { NodeRegistry } from './node-registry.js';
import type { PeerClient } from './peer-client.js';
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

export class SessionForwarder implements StreamRemote {
  readonly results = new Float64Array(FORWARD_RESULTS.length);

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

  claim(keyId: string, sessionId: string): Promise<boolean> {
    return this.directory.claim(keyId, sessionId);
  }

  ended(session: StreamSession): void {
    if (session.contract === 'compact') this.directory.release(session.keyId, session.sessionId);
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
    const peerUrl = this.registry.peerUrlOf(owner);
    if (peerUrl === undefined) return this.#gone(contract, 1, inputBytes);
    if (inputBytes > this.maxPayloadBytes) {
      // Refused whole, as the owner refuses it: the session carries on.
      const message = `The chunk is ${inputBytes} bytes of UTF-8; the limit is ${this.maxPayloadBytes}.`;
      return refusalAnswer(contract, makeError('PAYLOAD_TOO_LARGE', message), inputBytes);
    }
    const reply = await this.client.send(peerUrl, {
      endpoint,
      contract,
      keyId: encodeURIComponent(keyId),
      sessionId: encodeURIComponent(sessionId),
      warnings: warnings === null || warnings.length === 0 ? '' : encodeURIComponent(JSON.stringify(warnings)),
      // UTF-16 code units as they are: a chunk ending inside a surrogate pair arrives intact.
    }, Buffer.from(chunk, 'utf16le'), () => this.registry.peerUrlOf(owner) !== undefined);
    if (reply === null) return this.#gone(contract, 2, inputBytes);
    // The owner answers every forward it accepts with 200 (errors included); anything else is a
    // refusal of the forward itself, a CLUSTER_SECRET that differs between nodes: never shown as the
    // owner's answer (it would read as the client's own key being refused).
    if (reply.status !== 200) {
      this.onRefused(owner, reply.status);
      return this.#gone(contract, 3, inputBytes);
    }
    let outcome: PeerOutcome;
    try {
      outcome = JSON.parse(reply.outcome) as PeerOutcome;
      if (typeof outcome !== 'object' || outcome === null) throw new TypeError('not an outcome');
    } catch {
      // Not an owner's answer (every owner sends its outcome): an address that is not a node.
      return this.#gone(contract, 2, inputBytes);
    }
    this.results[0]!++;
    const answer = answerOf(contract, reply.status, reply.body, outcome.errorCode ?? null, Number(outcome.inputBytes) || inputBytes);
    const fields: AnswerOutcome = answer.outcome;
    fields.confidence = (outcome.confidence ?? null) as AnswerOutcome['confidence'];
    fields.repairCounts = outcome.repairCounts ?? {};
    fields.fault = outcome.fault ?? null;
    answer.execution = outcome.execution ?? 'stream';
    return answer;
  }

  #ownerOf(contract: Contract, keyId: string, sessionId: string): Promise<string | null> {
    if (contract === 'envelope') return Promise.resolve(ISSUED_ID.exec(sessionId)?.[1] ?? null);
    // Redis unreachable: nobody can be found, and the client is told to start again.
    return this.directory.ownerOf(keyId, sessionId).catch(() => null);
  }

  #gone(contract: Contract, result: number, inputBytes: number): RouteAnswer {
    this.results[result]!++;
    return refusalAnswer(contract, OWNER_GONE, inputBytes);
  }
}

// A node's side of sessions that follow their owner (docs/scaling.md "How forwarding works"): the
// node that answers `start` owns the session; a push or finalize that reaches another node is sent
// to the owner's PEER_URL and the owner's answer is passed back unchanged. Envelope ids name their
// owner (`<node id>.<22 base64url characters>`); compact ids are the client's UUIDs, so their owner is
// read from the session directory in Redis. An owner that is gone (out of the node registry, refusing
// connections, or silent past the forward timeout) makes the request SESSION_NOT_FOUND, recoverable.
import { randomBytes } from 'node:crypto';
import { makeError } from '../../contracts/error-codes.js';
import type { Warning } from '../../../engine/types.js';
import type { Contract } from '../../contracts/contract.js';
import { answerOf, refusalAnswer, type RouteAnswer } from '../../http/route-answer.js';
import type { AnswerOutcome, Execution } from '../../observe/request-record.js';
import type { StreamSession } from '../session-table.js';
import type { StreamRemote } from '../stream-sessions.js';
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

  async forward(
    endpoint: 'push' | 'finalize', contract: Contract, keyId: string, sessionId: string, chunk: string, warnings: readonly Warning[] | null,
  ): Promise<RouteAnswer> {
    const inputBytes = Buffer.byteLength(chunk, 'utf8');
    const owner = await this.#ownerOf(contract, keyId, sessionId);
    // Not issued by this cluster, never opened, or ours and already ended: simply not found.
    if (owner === null || owner === this.nodeId) return refusalAnswer(contract, NOT_FOUND, inputBytes);
    const peerUrl = this.registry.peerUrlOf(owner);
    if (peerUrl === undefined) return this.#gone(contract, 1, inputBytes);
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
    this.results[0]!++;
    let outcome: PeerOutcome;
    try {
      outcome = JSON.parse(reply.outcome) as PeerOutcome;
    } catch {
      outcome = { errorCode: null, confidence: null, repairCounts: {}, inputBytes, fault: null, execution: 'stream' };
    }
    const answer = answerOf(contract, reply.status, reply.body, outcome.errorCode, outcome.inputBytes);
    const fields: AnswerOutcome = answer.outcome;
    fields.confidence = outcome.confidence as AnswerOutcome['confidence'];
    fields.repairCounts = outcome.repairCounts;
    fields.fault = outcome.fault;
    answer.execution = outcome.execution;
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

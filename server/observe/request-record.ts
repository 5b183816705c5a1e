// The summary of one finished request that logs, metrics and the accounts layer receive. It holds
// no input, no output and no key: only ids, codes, counts and sizes.
import type { ResponseConfidence } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';

/** `stream`: answered by a streaming session's worker (server/streaming). */
export type Execution = 'inline' | 'pool' | 'none' | 'stream';

/** What a handler learned while answering; the HTTP layer adds time, route, key and status. */
export interface AnswerOutcome {
  contract: Contract;
  errorCode: string | null;
  confidence: ResponseConfidence | null;
  /** Applied repairs by envelope type (a detail's `count`, else 1). */
  repairCounts: Record<string, number>;
  /** UTF-8 bytes of the input text when the body was readable, else of the body. */
  inputBytes: number;
  /** An exception while repairing, as `Name at file:line` (a message could quote the input). */
  fault: string | null;
}

/** The repair counts of an answer that ran no repair (an error, a status page): one shared empty object. */
export const NO_COUNTS: Record<string, number> = Object.freeze({}) as Record<string, number>;

export interface RequestRecord {
  /** Epoch ms when the request arrived. */
  time: number;
  requestId: string;
  /** A route name from the route table (bounded: it labels metrics). */
  route: string;
  keyId: string | null;
  /** The key's KeyRecord.accountId (usage is counted under it); null without a key. */
  accountId: string | null;
  /** null when the answer shape did not depend on one (health, metrics). */
  contract: Contract | null;
  status: number;
  /** 'ok', an error code from the registry (server/contracts/error-codes.ts), or 'aborted' (client went away). */
  outcome: string;
  confidence: ResponseConfidence | null;
  repairCounts: Readonly<Record<string, number>>;
  inputBytes: number;
  latencyMs: number;
  execution: Execution;
}

export interface RequestObserver {
  /** Called on the uWS thread after the answer is written; must be cheap and must not throw. */
  onRequest(record: RequestRecord): void;
}

/** An exception as `Name at file:line`: its message is left out, since it could quote the input. */
export function describeFault(error: unknown): string {
  if (!(error instanceof Error)) return 'non-Error thrown';
  const frame = error.stack?.split('\n').find((line) => line.trimStart().startsWith('at '))?.trim() ?? '';
  return `${error.name} ${frame}`.slice(0, 300);
}

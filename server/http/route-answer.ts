// What a route answers: the status and rendered body, with what the request record needs to know
// of it. Shared by every route (the POST pipeline, streaming, forwarding between nodes), so it
// sits apart from any one of them.
import type { RepairError } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';
import { renderError } from '../contracts/render.js';
import { NO_COUNTS, type AnswerOutcome, type Execution } from '../observe/request-record.js';

export interface RouteAnswer {
  status: number;
  body: string;
  outcome: AnswerOutcome;
  execution: Execution;
}

/** An answer that ran no repair: its body already rendered in `contract`. */
export function answerOf(contract: Contract, status: number, body: string, errorCode: string | null, inputBytes: number): RouteAnswer {
  return {
    status,
    body,
    outcome: { contract, errorCode, confidence: null, repairCounts: NO_COUNTS, inputBytes, fault: null },
    execution: 'none',
  };
}

/** One error as a route's answer, in `contract`'s failure shape. */
export function refusalAnswer(
  contract: Contract,
  error: RepairError,
  inputBytes: number,
  demoMessage: string | null = null,
  retryAfterSeconds?: number,
): RouteAnswer {
  const rendered = renderError(error, contract, demoMessage, retryAfterSeconds);
  return answerOf(contract, rendered.status, rendered.body, rendered.errorCode, inputBytes);
}

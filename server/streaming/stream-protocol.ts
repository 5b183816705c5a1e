// The messages between the uWS thread and a streaming worker. A session is named in the worker by a
// numeric handle the main thread assigns; client ids never cross. Every message but CLOSE carries a
// request id that its one reply echoes, so replies can arrive in any order per worker.
import type { Mode, PreviewMode, RepairError, Warning } from '../../engine/types.js';
import type { Contract } from '../contracts/contract.js';

export const OPEN = 0;
export const PUSH = 1;
export const FINALIZE = 2;
export const CLOSE = 3;

export interface OpenMessage {
  op: typeof OPEN;
  id: number;
  handle: number;
  mode: Mode;
  /** undefined: no schema. Compiled (and cached) in the worker at open, so a bad one fails start. */
  schema: unknown;
  echoBuffer: boolean;
  preview: PreviewMode;
}

export interface PushMessage {
  op: typeof PUSH;
  id: number;
  handle: number;
  chunk: string;
  contract: Contract;
  /** The compact answer repeats the client's id and the sizes the main thread keeps. */
  sessionId: string;
  bufferedBytes: number;
  totalReceived: number;
}

export interface FinalizeMessage {
  op: typeof FINALIZE;
  id: number;
  handle: number;
  contract: Contract;
  /** Admission warnings (QUOTA_EXCEEDED), added to a successful result as in batch repair. */
  warnings: readonly Warning[] | null;
}

/** Frees a session (expired, terminated, or the server closing it); no reply. */
export interface CloseMessage {
  op: typeof CLOSE;
  handle: number;
}

export type ToWorker = OpenMessage | PushMessage | FinalizeMessage | CloseMessage;

/** The id of the one message a worker sends unasked, once its modules are loaded (call ids start at 1). */
export const READY = 0;

export interface WorkerReply {
  id: number;
  /** The answer body in the request's contract; null when `error` or `gone` says why not. */
  body: string | null;
  /** A refusal the main thread renders (a bad schema at open, an exception while repairing). */
  error: RepairError | null;
  /** The handle is unknown to this worker: answered SESSION_NOT_FOUND. */
  gone: boolean;
  /** Finalize only: the wire error code of the result, its confidence and repair counts (observers). */
  errorCode: string | null;
  confidence: string | null;
  repairCounts: Record<string, number> | null;
  /** An exception, as `Name at file:line` (never its message: it could quote the input). */
  fault: string | null;
}

export interface StreamWorkerData {
  testHooks: boolean;
  /** The engine's time limit for one push or finalize (config engineBudgetMs). */
  engineBudgetMs: number;
}

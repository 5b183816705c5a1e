// A streaming worker thread: owns the createStream of every session pinned to it, for the session's
// whole life. It answers each message with one reply, serialized in the request's contract here, so
// the uWS thread never walks a partial value or a buffer. Loads the engine, never uWS.
import { parentPort, workerData } from 'node:worker_threads';
import { compiledSchema } from '../../engine/schema/index.js';
import { DeadlineExceededError } from '../../engine/deadline.js';
import { createStream, type RepairStream } from '../../engine/stream.js';
import type { RepairResponse } from '../../engine/types.js';
import { renderRepairSafely } from '../contracts/render.js';
import { describeFault } from '../observe/request-record.js';
import { applyTestHooks } from '../config/worker-test-hooks.js';
import { addWarnings, countRepairs } from '../contracts/response-metadata.js';
import {
  CLOSE, FINALIZE, OPEN, PUSH, READY,
  type FinalizeMessage, type OpenMessage, type PushMessage, type StreamWorkerData, type ToWorker, type WorkerReply,
} from './stream-protocol.js';
import { serializeCompactPush, serializeEnvelopePush } from './stream-serializers.js';

const { testHooks, engineBudgetMs } = workerData as StreamWorkerData;
const port = parentPort!;
const streams = new Map<number, RepairStream>();

// Every reply is a fresh object: a field left over from an earlier message (one that threw half-way)
// can never reach the next one. One small object per message is nothing beside postMessage's clone.
function send(id: number, body: string | null, extra: Partial<Omit<WorkerReply, 'id' | 'body'>> = {}): void {
  const reply: WorkerReply = {
    id, body, error: null, gone: false, errorCode: null, confidence: null, repairCounts: null, fault: null, ...extra,
  };
  port.postMessage(reply);
}

function sendFault(id: number, error: unknown): void {
  send(id, null, { fault: describeFault(error) });
}

function sendGone(id: number): void {
  send(id, null, { gone: true });
}

function open(m: OpenMessage): void {
  if (m.schema !== undefined) {
    // Compiled now, so a bad schema fails `start` rather than `finalize`, and finalize finds it cached.
    const compiled = compiledSchema(m.schema);
    if (!compiled.ok) {
      send(m.id, null, { error: compiled.error });
      return;
    }
  }
  const options = { mode: m.mode, echoBuffer: m.echoBuffer, preview: m.preview, callBudgetMs: engineBudgetMs };
  streams.set(m.handle, createStream(m.schema === undefined ? options : { ...options, schema: m.schema }));
  send(m.id, '');
}

function push(m: PushMessage): void {
  const stream = streams.get(m.handle);
  if (stream === undefined) return sendGone(m.id);
  if (testHooks) applyTestHooks(Buffer.from(m.chunk));
  const state = stream.push(m.chunk);
  if (m.contract === 'envelope') {
    send(m.id, serializeEnvelopePush({ state }));
    return;
  }
  send(m.id, serializeCompactPush({
    sessionId: m.sessionId,
    valid: state.json_parseable,
    partial: state.partial,
    partialPatch: state.partial_patch,
    settled: state.settled,
    safeToEmit: state.safe_to_emit,
    bufferedBytes: m.bufferedBytes,
    totalReceived: m.totalReceived,
  }));
}

function finalize(m: FinalizeMessage): void {
  const stream = streams.get(m.handle);
  if (stream === undefined) return sendGone(m.id);
  streams.delete(m.handle);
  const response: RepairResponse = stream.finalize();
  if (m.warnings !== null && m.warnings.length > 0) addWarnings(response, m.warnings);
  const rendered = renderRepairSafely(response, m.contract, null);
  send(m.id, rendered.body, {
    errorCode: rendered.errorCode,
    confidence: response.success && rendered.errorCode === null ? response.metadata.confidence : null,
    repairCounts: countRepairs(response),
  });
}

port.on('message', (m: ToWorker) => {
  if (m.op === CLOSE) {
    streams.delete(m.handle);
    return;
  }
  try {
    if (m.op === PUSH) push(m);
    else if (m.op === OPEN) open(m);
    else if (m.op === FINALIZE) finalize(m);
  } catch (error) {
    // An engine or serializer exception ends that session only; the main thread forgets it too.
    streams.delete(m.handle);
    // A push past the engine's time limit is the caller's error, not a fault of the service.
    if (error instanceof DeadlineExceededError) send(m.id, null, { error: error.toRepairError() });
    else sendFault(m.id, error);
  }
});
// Module loading takes most of a worker's start (0.1-1 s on a busy machine); deadlines start here.
send(READY, null);

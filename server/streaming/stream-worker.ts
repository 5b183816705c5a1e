// A streaming worker thread: owns the createStream of every session pinned to it, for the session's
// whole life. It answers each message with one reply, serialized in the request's contract here, so
// the uWS thread never walks a partial value or a buffer. Loads the engine, never uWS.
import { parentPort, workerData } from 'node:worker_threads';
import { compiledSchema } from '../../engine/schema/index.js';
import { createStream, type RepairStream } from '../../engine/stream.js';
import type { RepairResponse, StreamState } from '../../engine/types.js';
import { renderRepairSafely } from '../contracts/render.js';
import { describeFault } from '../observe/request-record.js';
import { applyTestHooks } from '../config/worker-test-hooks.js';
import { addWarnings, countRepairs } from '../contracts/response-metadata.js';
import {
  CLOSE, FINALIZE, OPEN, PUSH, READY,
  type FinalizeMessage, type OpenMessage, type PushMessage, type StreamWorkerData, type ToWorker, type WorkerReply,
} from './stream-protocol.js';
import { serializeCompactPush, serializeEnvelopePush } from './stream-serializers.js';

const { testHooks } = workerData as StreamWorkerData;
const port = parentPort!;
const streams = new Map<number, RepairStream>();

// postMessage clones synchronously, so one reply object (and one of each answer shape) serves every
// message without allocating.
const reply: WorkerReply = {
  id: 0, body: null, error: null, gone: false, errorCode: null, confidence: null, repairCounts: null, fault: null,
};
const envelopePush: { state: StreamState | null } = { state: null };
const compactPush = { sessionId: '', valid: false, partial: null as unknown, safeToEmit: false, bufferedBytes: 0, totalReceived: 0 };

function send(id: number, body: string | null): void {
  reply.id = id;
  reply.body = body;
  port.postMessage(reply);
  reply.error = null;
  reply.gone = false;
  reply.errorCode = null;
  reply.confidence = null;
  reply.repairCounts = null;
  reply.fault = null;
}

function sendFault(id: number, error: unknown): void {
  reply.fault = describeFault(error);
  send(id, null);
}

function sendGone(id: number): void {
  reply.gone = true;
  send(id, null);
}

function open(m: OpenMessage): void {
  if (m.schema !== undefined) {
    // Compiled now, so a bad schema fails `start` rather than `finalize`, and finalize finds it cached.
    const compiled = compiledSchema(m.schema);
    if (!compiled.ok) {
      reply.error = compiled.error;
      send(m.id, null);
      return;
    }
  }
  streams.set(m.handle, createStream(m.schema === undefined ? { mode: m.mode, echoBuffer: m.echoBuffer } : { schema: m.schema, mode: m.mode, echoBuffer: m.echoBuffer }));
  send(m.id, '');
}

function push(m: PushMessage): void {
  const stream = streams.get(m.handle);
  if (stream === undefined) return sendGone(m.id);
  if (testHooks) applyTestHooks(Buffer.from(m.chunk));
  const state = stream.push(m.chunk);
  if (m.contract === 'envelope') {
    envelopePush.state = state;
    send(m.id, serializeEnvelopePush(envelopePush));
    envelopePush.state = null;
    return;
  }
  compactPush.sessionId = m.sessionId;
  compactPush.valid = state.json_parseable;
  compactPush.partial = state.partial;
  compactPush.safeToEmit = state.safe_to_emit;
  compactPush.bufferedBytes = m.bufferedBytes;
  compactPush.totalReceived = m.totalReceived;
  send(m.id, serializeCompactPush(compactPush));
  compactPush.partial = null;
}

function finalize(m: FinalizeMessage): void {
  const stream = streams.get(m.handle);
  if (stream === undefined) return sendGone(m.id);
  streams.delete(m.handle);
  const response: RepairResponse = stream.finalize();
  if (m.warnings !== null && m.warnings.length > 0) addWarnings(response, m.warnings);
  const rendered = renderRepairSafely(response, m.contract, null);
  reply.errorCode = rendered.errorCode;
  reply.confidence = response.success && rendered.errorCode === null ? response.metadata.confidence : null;
  reply.repairCounts = countRepairs(response);
  send(m.id, rendered.body);
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
    sendFault(m.id, error);
  }
});
// Module loading takes most of a worker's start (0.1-1 s on a busy machine); deadlines start here.
send(READY, null);

// The pool's worker module: adapts a pool task to runRepairTask. Loads the engine, never uWS.
import { workerData } from 'piscina';
import { compiledSchema, takeSchemaCompileMs, warmUpSchemaCompiler } from '../../engine/schema/index.js';
import { makeError } from '../contracts/error-codes.js';
import { schemaComplexityError } from '../contracts/schema-complexity.js';
import { NO_COUNTS } from '../observe/request-record.js';
import { runRepairTask, type RepairTaskResult, type RepairTaskSettings } from './repair-task.js';
import type { WorkerTask } from './repair-pool.js';
import { applyTestHooks, busyReadingMs } from '../config/worker-test-hooks.js';

interface RepairWorkerData { settings: RepairTaskSettings; testHooks: boolean }

const { settings, testHooks } = workerData as RepairWorkerData;
// Before the first task (the pool's warm-up waits for this module): the compile cost a worker
// reports for a schema is then its own, not the compiler's first-use cost (inline-schema-gate.ts).
warmUpSchemaCompiler();

export default function repairInWorker(task: WorkerTask): RepairTaskResult {
  const body = new Uint8Array(task.body);
  if (testHooks) applyTestHooks(body);
  const busyMs = testHooks ? busyReadingMs(body) : 0;
  if (task.compileOnly === true) return compileOnly(body);
  // No schema gate, so the result is never NEEDS_POOL.
  const result = runRepairTask({ endpoint: task.endpoint, body, warnings: task.warnings, schemaGate: null }, settings) as RepairTaskResult;
  // The HTTP thread compiles a repeated schema itself only if it was cheap here (inline-schema-gate.ts).
  const compileMs = takeSchemaCompileMs();
  if (compileMs !== undefined) result.schemaCompileMs = compileMs + busyMs;
  return result;
}

/** Compiles a schema (JSON text) into this worker's cache, to learn whether it compiles and at what cost. */
function compileOnly(body: Uint8Array): RepairTaskResult {
  const result: RepairTaskResult = {
    status: 200, body: '',
    outcome: { contract: 'envelope', errorCode: null, confidence: null, repairCounts: NO_COUNTS, inputBytes: body.byteLength, fault: null },
  };
  let schema: unknown;
  try {
    schema = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    result.schemaError = makeError('INVALID_REQUEST', 'The schema is not JSON.');
    return result;
  }
  const refused = schemaComplexityError(schema);
  const compiled = refused === null ? compiledSchema(schema) : null;
  if (refused !== null) result.schemaError = refused;
  else if (!compiled!.ok) result.schemaError = compiled!.error;
  const ms = takeSchemaCompileMs();
  if (ms !== undefined) result.schemaCompileMs = ms;
  return result;
}

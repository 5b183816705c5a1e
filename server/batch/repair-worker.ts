// The pool's worker module: adapts a pool task to runRepairTask. Loads the engine, never uWS.
import { workerData } from 'piscina';
import { takeSchemaCompileMs, warmUpSchemaCompiler } from '../../engine/schema/index.js';
import { runRepairTask, type RepairTaskResult, type RepairTaskSettings } from './repair-task.js';
import type { WorkerTask } from './repair-pool.js';
import { applyTestHooks } from '../config/worker-test-hooks.js';

interface RepairWorkerData { settings: RepairTaskSettings; testHooks: boolean }

const { settings, testHooks } = workerData as RepairWorkerData;
// Before the first task (the pool's warm-up waits for this module): the compile cost a worker
// reports for a schema is then its own, not the compiler's first-use cost (inline-schema-gate.ts).
warmUpSchemaCompiler();

export default function repairInWorker(task: WorkerTask): RepairTaskResult {
  const body = new Uint8Array(task.body);
  if (testHooks) applyTestHooks(body);
  // No schema gate, so the result is never NEEDS_POOL.
  const result = runRepairTask({ endpoint: task.endpoint, body, warnings: task.warnings, schemaGate: null }, settings) as RepairTaskResult;
  // The HTTP thread compiles a repeated schema itself only if it was cheap here (inline-schema-gate.ts).
  const compileMs = takeSchemaCompileMs();
  if (compileMs !== undefined) result.schemaCompileMs = compileMs;
  return result;
}

// The pool's worker module: adapts a pool task to runRepairTask. Loads the engine, never uWS.
import { workerData } from 'piscina';
import { runRepairTask, type RepairTaskResult, type RepairTaskSettings } from '../tasks/repair-task.js';
import type { WorkerTask } from './repair-pool.js';
import { applyTestHooks } from './test-hooks.js';

interface RepairWorkerData { settings: RepairTaskSettings; testHooks: boolean }

const { settings, testHooks } = workerData as RepairWorkerData;

export default function repairInWorker(task: WorkerTask): RepairTaskResult {
  const body = new Uint8Array(task.body);
  if (testHooks) applyTestHooks(body);
  // refuseSchema is false, so the result is never NEEDS_POOL.
  return runRepairTask({ endpoint: task.endpoint, body, warnings: task.warnings, refuseSchema: false }, settings) as RepairTaskResult;
}

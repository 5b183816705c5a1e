// What batch and streaming replies both add to the engine's response on the server's side: the
// admission warnings (QUOTA_EXCEEDED and the like) and the per-type repair counts that logs, metrics
// and the accounts layer record. One module, so a streaming worker needs nothing of the batch task.
import type { RepairResponse, Warning } from '../../engine/types.js';

export function countRepairs(response: RepairResponse): Record<string, number> {
  // A plain object, not Object.create(null): that one is born in dictionary mode, and the observers
  // that walk it per request (metrics, metadata log) took twice as long. The keys are the engine's
  // repair types (snake_case, none of them an Object.prototype name).
  const counts: Record<string, number> = {};
  const applied = response.metadata.repairs_applied;
  for (let i = 0; i < applied.length; i++) {
    const detail = applied[i]!;
    counts[detail.type] = (counts[detail.type] ?? 0) + (detail.count ?? 1);
  }
  return counts;
}

export function addWarnings(response: RepairResponse, warnings: readonly Warning[]): void {
  if (!response.success) return;
  response.metadata.warnings.push(...warnings);
  // docs/design.md "Confidence": any warning makes the overall confidence at least medium.
  if (response.metadata.confidence === 'high') response.metadata.confidence = 'medium';
}

// Collects syntax repairs: one RepairDetail per type, with the position of the first occurrence and
// a count, as the issue asks ("one detail per repair type"), in order of first occurrence.
import { REPAIR_KINDS, type RepairType } from '../repair-kinds.js';
import type { RepairDetail } from '../types.js';

export class RepairLog {
  private readonly byType = new Map<RepairType, RepairDetail>();

  get size(): number {
    return this.byType.size;
  }

  record(type: RepairType, position: number): void {
    const seen = this.byType.get(type);
    if (seen !== undefined) {
      seen.count!++;
      return;
    }
    const kind = REPAIR_KINDS[type];
    this.byType.set(type, { type, confidence: kind.confidence, safe: kind.confidence === 'high', position, count: 1 });
  }

  has(type: RepairType): boolean {
    return this.byType.has(type);
  }

  /** Detail objects are copied so a caller cannot change the log of a live stream. */
  details(): RepairDetail[] {
    const out: RepairDetail[] = [];
    for (const d of this.byType.values()) out.push({ ...d });
    return out;
  }
}

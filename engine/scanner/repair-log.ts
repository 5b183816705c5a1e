// Collects syntax repairs: one RepairDetail per type, with the position of the first occurrence and
// a count, as the issue asks ("one detail per repair type"), in order of first occurrence. A repair
// costs one property load and two array writes: dense inputs record tens of thousands of them.
import { REPAIR_KINDS, type RepairType } from '../repair-kinds.js';
import type { RepairDetail } from '../types.js';

const TYPES = Object.keys(REPAIR_KINDS) as RepairType[];
const INDEX: Record<string, number> = Object.fromEntries(TYPES.map((type, k) => [type, k]));

export class RepairLog {
  private readonly counts = new Uint32Array(TYPES.length);
  private readonly firstAt = new Float64Array(TYPES.length);
  /** Type indexes in order of first occurrence. */
  private readonly order: number[] = [];

  get size(): number {
    return this.order.length;
  }

  record(type: RepairType, position: number): void {
    const k = INDEX[type]!;
    if (this.counts[k]++ === 0) {
      this.firstAt[k] = position;
      this.order.push(k);
    }
  }

  details(): RepairDetail[] {
    const out: RepairDetail[] = [];
    for (const k of this.order) {
      const type = TYPES[k]!;
      const confidence = REPAIR_KINDS[type].confidence;
      out.push({ type, confidence, safe: confidence === 'high', position: this.firstAt[k]!, count: this.counts[k]! });
    }
    return out;
  }
}

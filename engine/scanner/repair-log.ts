// Collects syntax repairs: one RepairDetail per type, with the position of the first occurrence and
// a count, as the issue asks ("one detail per repair type"), in order of first occurrence. A repair
// costs one property load and two array writes: dense inputs record tens of thousands of them.
// A kind's confidence (repair-kinds.ts) is what it earns where its reading is certain; a site that
// had to choose or guess records it with a lower one (doubt), and the detail carries the lowest.
import { REPAIR_KINDS, type RepairType } from '../repair-kinds.js';
import type { Confidence, RepairDetail } from '../types.js';

const TYPES = Object.keys(REPAIR_KINDS) as RepairType[];
// A Map: its lookup by a constant name is about twice as fast as a keyed load of 42 names.
const INDEX = new Map<string, number>(TYPES.map((type, k) => [type, k]));

/**
 * Each type's index, for the scanner's hottest repair sites (the fast lane, a trailing comma): a
 * property of a constant object is an inlined load, where record()'s lookup by name is a Map probe
 * (measured: a sixth of the repair log's time on the malformed megabyte).
 */
export const KIND: Readonly<Record<RepairType, number>> = Object.freeze(Object.fromEntries(TYPES.map((type, k) => [type, k])) as Record<RepairType, number>);

const STRIP_FENCE = INDEX.get('removed_markdown_fence')!;
const STRIP_LEADING = INDEX.get('stripped_leading_text')!;
const STRIP_TRAILING = INDEX.get('stripped_trailing_text')!;

export class RepairLog {
  // Plain arrays made at the first repair: a typed array costs ~0.6 µs to allocate, a tenth of a
  // small repair, and valid input never needs either.
  private counts: number[] | null = null;
  private firstAt: number[] | null = null;
  /** Type indexes in order of first occurrence. */
  private readonly order: number[] = [];
  /** Per type index, the lowest confidence a site recorded it with (doubt); null until one did. */
  private lowered: Array<Confidence | undefined> | null = null;
  /** The lowest input offset recorded (a site may record an earlier place later: sawRawBackslash). */
  private minAt = -1;

  get size(): number {
    return this.order.length;
  }

  record(type: RepairType, position: number): void {
    this.recordKind(INDEX.get(type)!, position);
  }

  /** record() by the type's index in KIND. */
  recordKind(k: number, position: number): void {
    let counts = this.counts;
    if (counts === null) {
      counts = this.counts = new Array<number>(TYPES.length).fill(0);
      this.firstAt = new Array<number>(TYPES.length).fill(0);
    }
    if (this.minAt < 0 || position < this.minAt) this.minAt = position;
    if (counts[k]++ === 0) {
      this.firstAt![k] = position;
      this.order.push(k);
    }
  }

  /**
   * record() at a site whose reading was a choice or a guess: the type's detail is at most
   * `confidence` (medium: a reading was chosen or where a value ends was guessed; low: a careful
   * reader could take another reading, or data was dropped).
   */
  doubt(type: RepairType, position: number, confidence: 'medium' | 'low'): void {
    const k = INDEX.get(type)!;
    this.recordKind(k, position);
    const lowered = this.lowered ??= [];
    if (lowered[k] !== 'low') lowered[k] = confidence;
  }

  /**
   * Takes back one record() of `type` whose reading was given up later (a Python set whose braces
   * turned out to hold an object: python-set.ts); its detail goes when no other occurrence is left.
   */
  retract(type: RepairType): void {
    const k = INDEX.get(type)!;
    if (this.counts === null || this.counts[k] === 0) return;
    if (--this.counts[k]! === 0) this.order.splice(this.order.indexOf(k), 1);
  }

  /** Input offset of the first repair of this type (-1: none). */
  positionOf(type: RepairType): number {
    const k = INDEX.get(type)!;
    return this.counts !== null && this.counts[k]! > 0 ? this.firstAt![k]! : -1;
  }

  /** Input offset of the earliest repair recorded, wherever it was recorded from (-1: none). */
  firstPosition(): number {
    return this.minAt;
  }

  /** Whether a repair of this type was made. */
  has(type: RepairType): boolean {
    return this.counts !== null && this.counts[INDEX.get(type)!]! > 0;
  }

  /** Whether a repair of any of these kinds (their indexes in KIND) was made. */
  hasAnyKind(kinds: readonly number[]): boolean {
    const counts = this.counts;
    if (counts === null) return false;
    for (let i = 0; i < kinds.length; i++) if (counts[kinds[i]!]! > 0) return true;
    return false;
  }

  /** Whether a repair of a kind whose confidence is low (a guess) was made. */
  hasGuess(): boolean {
    for (const k of this.order) if (REPAIR_KINDS[TYPES[k]!].confidence === 'low') return true;
    return false;
  }

  /**
   * Whether every repair so far only took the reply's JSON out of what surrounds it (a fence, prose
   * before or after): the JSON itself is as written.
   */
  strippedOnly(): boolean {
    for (const k of this.order) if (k !== STRIP_FENCE && k !== STRIP_LEADING && k !== STRIP_TRAILING) return false;
    return true;
  }

  /** Whether a site recorded a repair with less than its kind's confidence (doubt). */
  doubted(): boolean {
    return this.lowered !== null && this.lowered.some((c) => c !== undefined);
  }

  details(): RepairDetail[] {
    const out: RepairDetail[] = [];
    for (const k of this.order) out.push(repairDetail(TYPES[k]!, this.firstAt![k]!, this.counts![k]!, this.lowered?.[k]));
    return out;
  }
}

const RANK: Record<Confidence, number> = { high: 0, medium: 1, low: 2 };

/** The detail of a repair; `lowered`, when a site doubted it, caps the kind's confidence. */
export function repairDetail(type: RepairType, position: number, count: number, lowered?: Confidence): RepairDetail {
  const own: Confidence = REPAIR_KINDS[type].confidence;
  const confidence = lowered !== undefined && RANK[lowered] > RANK[own] ? lowered : own;
  return { type, confidence, safe: confidence === 'high', position, count };
}

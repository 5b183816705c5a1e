// What a fuzzed repair must satisfy, and how repair time scales with input size. Used by
// test/hardening/engine-fuzz.test.ts, test/engine/properties.test.ts and scripts/fuzz.ts; each check returns a reason or null.
import { firstDifference } from '../support/json-equal.js';
import { createRandom } from '../support/random.js';
import { repair } from '../engine/index.js';
import type { RepairResponse } from '../engine/index.js';
import type { FuzzFamily } from './fuzz-families.js';

/** JSON.stringify recurses; deeper values are checked without a serialization round trip. */
export const SERIALIZABLE_DEPTH = 1000;

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join();

/** Depth of a plain JSON value, or why it is not one. Iterative: inputs nest a million deep. */
export function plainJsonDepth(value: unknown): number | string {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `non-finite number ${v}`;
      continue;
    }
    if (typeof v !== 'object') return `not a JSON value: ${typeof v}`;
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v)) {
      if (proto !== Array.prototype) return 'array with a foreign prototype';
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) return 'array with a hole';
        stack.push([v[i], depth + 1]);
      }
      continue;
    }
    if (proto !== Object.prototype && proto !== null) return 'object with a foreign prototype';
    for (const key of Object.keys(v)) stack.push([(v as Record<string, unknown>)[key], depth + 1]);
  }
  return deepest;
}

/** Object.prototype gained or lost a member (pollution through a `__proto__` key, say). */
export function prototypeTouched(): string | null {
  const names = Object.getOwnPropertyNames(Object.prototype).sort().join();
  return names === PROTOTYPE_NAMES ? null : `Object.prototype now has: ${names}`;
}

function repairOrReason(text: string): RepairResponse | string {
  try {
    return repair(text);
  } catch (error) {
    return `repair threw ${(error as Error)?.name}: ${(error as Error)?.message}`;
  }
}

/**
 * Never throws; a failure is the failure shape; a success is a plain JSON value that survives
 * JSON.stringify/JSON.parse, and repairing that serialization reports nothing and changes nothing.
 */
export function brokenInputViolation(text: string): string | null {
  const response = repairOrReason(text);
  if (typeof response === 'string') return response;
  const touched = prototypeTouched();
  if (touched !== null) return touched;
  const m = response.metadata;
  if (!response.success) {
    if (response.repaired !== null || m.errors.length === 0) return 'failure without errors or with a value';
    return null;
  }
  if (m.errors.length > 0 || !m.output_valid_json) return 'success with errors or output_valid_json false';
  const depth = plainJsonDepth(response.repaired);
  if (typeof depth === 'string') return depth;
  if (depth > SERIALIZABLE_DEPTH) return null;
  const serialized = unambiguous(JSON.stringify(response.repaired));
  const reparsed: unknown = JSON.parse(serialized);
  const at = firstDifference(reparsed, response.repaired);
  if (at !== null) return `value changes when serialized, at "${at}"`;
  const again = repairOrReason(serialized);
  if (typeof again === 'string') return `on its own output: ${again}`;
  if (!again.success || again.metadata.was_repaired || again.metadata.syntax_repairs.length > 0) {
    return `not idempotent: repairing the output reports ${JSON.stringify(again.metadata.syntax_repairs.map((r) => r.type))}`;
  }
  const changed = firstDifference(again.repaired, response.repaired);
  return changed === null ? null : `not idempotent: value changes at "${changed}"`;
}

/**
 * JSON.stringify writes a form feed or backspace as `\f` / `\b`, which the engine reads as a raw
 * backslash when a letter follows (LaTeX's `\frac`, `\beta`: `escaped_backslash` in docs/repairs.md).
 * Before the output is read again they take their unambiguous `\u` spelling; an escaped backslash
 * (`\\`) is matched as a unit so the one after it is never mistaken for an escape.
 */
function unambiguous(json: string): string {
  return json.replace(/\\(\\|f|b)/g, (match, escape: string) => (escape === 'f' ? '\\u000c' : escape === 'b' ? '\\u0008' : match));
}

/** Valid JSON comes back as JSON.parse reads it, unrepaired, high confidence. */
export function validInputViolation(text: string): string | null {
  const response = repairOrReason(text);
  if (typeof response === 'string') return response;
  const m = response.metadata;
  if (!response.success) return `valid JSON failed: ${m.errors[0]?.code}`;
  if (m.was_repaired || m.syntax_repairs.length > 0 || m.confidence !== 'high') {
    return `valid JSON reported repaired: ${JSON.stringify(m.syntax_repairs.map((r) => r.type))} (${m.confidence})`;
  }
  const at = firstDifference(response.repaired, JSON.parse(text));
  return at === null ? prototypeTouched() : `valid JSON changed at "${at}"`;
}

export interface Scaling {
  family: string;
  seed: number;
  smallChars: number;
  largeChars: number;
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs divided by largeChars / smallChars: 1 is linear, 8 is quadratic at 8x. */
  perCharRatio: number;
}

function fastestMs(text: string, runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    repair(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The engine read the whole text as one value (no trailing text dropped, no failure). */
function readsToEnd(text: string): boolean {
  const response = repair(text);
  return response.success && !response.metadata.repairs_applied.some((r) => r.type === 'stripped_trailing_text');
}

/**
 * Times the family's broken text at `bytes` and `factor` x `bytes` (same seed), fastest of `runs`.
 * A text the engine stops reading early would time nothing, so the first seed from `seed` on whose
 * larger text is read to its end is used (families like random bytes rarely have one: then `seed`).
 */
export function measureScaling(family: FuzzFamily, seed: number, bytes: number, factor: number, runs: number): Scaling {
  let chosen = seed;
  for (let candidate = seed; candidate < seed + 20; candidate++) {
    if (readsToEnd(family.broken(createRandom(candidate), bytes * factor))) {
      chosen = candidate;
      break;
    }
  }
  const small = family.broken(createRandom(chosen), bytes);
  const large = family.broken(createRandom(chosen), bytes * factor);
  // V8 optimizes the scanner only after many calls; timing before that measures the compiler.
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) repair(small);
  repair(large);
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let i = 0; i < runs; i++) {
    smallMs = Math.min(smallMs, fastestMs(small, factor));
    largeMs = Math.min(largeMs, fastestMs(large, 1));
  }
  return {
    family: family.name,
    seed: chosen,
    smallChars: small.length,
    largeChars: large.length,
    smallMs,
    largeMs,
    perCharRatio: largeMs / smallMs / (large.length / small.length),
  };
}

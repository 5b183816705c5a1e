// Streamed previews checked against their guarantees (docs/streaming.md "Preview modes"): pieces
// pushed in progressive and patch mode side by side, and every guarantee over the run — the patches
// give the progressive previews, a preview only grows (nothing shown is taken back), a settled value
// never changes, and the last preview is finalize's value.
import { applyPatch } from '../../client/apply-patch.js';
import { valueAt } from '../../engine/schema/json-pointer.js';
import { createStream, type PatchOperation, type StreamOptions } from '../../engine/index.js';

export function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** What is wrong with `next` as the preview after `prev` (a guarantee broken), or null. */
export function growthViolation(prev: unknown, next: unknown, at = ''): string | null {
  if (prev === undefined || prev === null && at === '') return null;
  if (next === undefined) return `${at} disappeared`;
  const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(prev) !== kind(next)) return `${at} changed type ${kind(prev)} -> ${kind(next)}`;
  if (typeof prev === 'string') return (next as string).startsWith(prev) ? null : `${at} string did not grow by appending`;
  if (prev === null || typeof prev !== 'object') return Object.is(prev, next) ? null : `${at} changed ${String(prev)} -> ${String(next)}`;
  if (Array.isArray(prev)) {
    const n = next as unknown[];
    if (n.length < prev.length) return `${at} lost elements`;
    for (let i = 0; i < prev.length; i++) {
      const v = growthViolation(prev[i], n[i], `${at}/${i}`);
      if (v !== null) return v;
    }
    return null;
  }
  const p = prev as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!Object.hasOwn(n, key)) return `${at}/${key} disappeared`;
    const v = growthViolation(p[key], n[key], `${at}/${key}`);
    if (v !== null) return v;
  }
  return null;
}

export interface Run {
  progressive: unknown[];
  settled: string[][];
  patched: unknown[];
  patchBytes: number;
  final: unknown;
}

/** `pieces` pushed in progressive and in patch mode side by side; snapshots of every preview. */
export function run(pieces: string[], options: StreamOptions = {}): Run {
  const progressive = createStream({ ...options, preview: 'progressive' });
  const patch = createStream({ ...options, preview: 'patch' });
  const out: Run = { progressive: [], settled: [], patched: [], patchBytes: 0, final: undefined };
  const patches: PatchOperation[][] = [];
  for (const piece of pieces) {
    const a = progressive.push(piece);
    const b = patch.push(piece);
    out.progressive.push(structuredClone(a.partial));
    out.settled.push(a.settled!);
    if (b.partial !== undefined) throw new Error('a patch state carries partial');
    out.patchBytes += JSON.stringify(b.partial_patch).length;
    patches.push(b.partial_patch!);
  }
  // Applied only now: each push's operations keep their values as they were when it answered.
  let doc: unknown = null;
  for (const ops of patches) {
    doc = applyPatch(doc, ops);
    out.patched.push(structuredClone(doc));
  }
  out.final = progressive.finalize().repaired;
  patch.finalize();
  return out;
}

/** Every guarantee over one run; the first broken one, or null. */
export function runViolation(r: Run, container: boolean): string | null {
  for (let k = 0; k < r.progressive.length; k++) {
    if (JSON.stringify(r.patched[k]) !== JSON.stringify(r.progressive[k])) return `push ${k}: patches give ${JSON.stringify(r.patched[k])}, progressive ${JSON.stringify(r.progressive[k])}`;
    if (k > 0) {
      const v = growthViolation(r.progressive[k - 1], r.progressive[k]);
      if (v !== null) return `push ${k}: ${v}`;
    }
    for (const pointer of r.settled[k]!) {
      const now = JSON.stringify(valueAt(r.progressive[k], pointer));
      const last = JSON.stringify(valueAt(r.progressive[r.progressive.length - 1], pointer));
      if (now === undefined || now !== last) return `push ${k}: ${pointer} settled as ${now}, later ${last}`;
    }
  }
  const last = r.progressive[r.progressive.length - 1];
  if (container && JSON.stringify(last) !== JSON.stringify(r.final)) return `last preview ${JSON.stringify(last)} is not finalize's ${JSON.stringify(r.final)}`;
  // Whatever the last push left unshown, finalize's value only adds to what was shown.
  const v = growthViolation(last, r.final);
  return v === null ? null : `finalize: ${v}`;
}

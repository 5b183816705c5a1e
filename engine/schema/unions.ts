// anyOf/oneOf: pick the branch the value belongs to, then repair it under that branch.
// 1. Exactly one branch accepts the value as it is: use it (no guessing needed).
// 2. Several accept it: nothing to decide; keep every member any branch declares.
// 3. None accepts it: repair a copy under each branch; adopt the result if exactly one branch
//    accepts its repaired copy (or all that do produce the same value). Otherwise leave the value
//    alone and let validation report it: coercing towards one of several possible shapes is a guess.
// Trials are bounded in nesting depth and in total work (see limits.ts).
import { stableValueText } from './canonical.js';
import type { Effective } from './effective.js';
import { MAX_UNION_TRIAL_DEPTH } from './limits.js';
import type { RepairSink } from './repair-detail.js';
import { cloneJson } from './value-utils.js';
import type { WalkEnv } from './walk-env.js';
import type { Walk } from './walker.js';

/** Resolves e.unions[0]: returns the record to continue with, or null when a trial's result was adopted (env.adopted). */
export function resolveUnion(env: WalkEnv, value: unknown, e: Effective, pointer: string, sink: RepairSink, walk: Walk): Effective | null {
  const model = env.model;
  const group = e.unions![0]!;
  const branches = group.branches;
  let fitting = -1;
  let fits = 0;
  for (let i = 0; i < branches.length; i++) {
    if (env.validatorAt(group.pointers[i]!)(value)) {
      fits++;
      if (fitting < 0) fitting = i;
    }
  }
  if (fits === 1) return model.withBranch(e, 0, branches[fitting]!);
  if (fits > 1 || env.trialDepth >= MAX_UNION_TRIAL_DEPTH || env.budget <= 0) return model.withoutUnion(e, 0);

  let chosen: { value: unknown; sink: RepairSink } | null = null;
  let chosenText: string | null = null;
  for (let i = 0; i < branches.length; i++) {
    const trialSink: RepairSink = { repairs: [], warnings: [] };
    env.trialDepth++;
    const repaired = walk(env, cloneJson(value), model.withBranch(e, 0, branches[i]!), pointer, trialSink, true);
    env.trialDepth--;
    if (env.aborted) {
      env.aborted = false;
      return model.withoutUnion(e, 0);
    }
    if (!env.validatorAt(group.pointers[i]!)(repaired)) continue;
    if (chosen === null) {
      chosen = { value: repaired, sink: trialSink };
      continue;
    }
    chosenText ??= stableValueText(chosen.value);
    if (stableValueText(repaired) !== chosenText) return model.withoutUnion(e, 0);
  }
  if (chosen === null) return model.withoutUnion(e, 0);
  for (const repair of chosen.sink.repairs) sink.repairs.push(repair);
  for (const warning of chosen.sink.warnings) sink.warnings.push(warning);
  env.adopted = chosen.value;
  return null;
}

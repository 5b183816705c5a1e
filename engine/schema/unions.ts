// anyOf/oneOf: pick the branch the value belongs to, then repair it under that branch.
// 1. The value's JSON type is allowed by exactly one branch, or (an object) its const/enum members
//    rule out all branches but one (discriminator.ts): that branch (no validation needed, so
//    recursive schemas such as trees, and arrays of tagged objects, stay linear).
// 2. Several branches allow its type: the one that accepts it as it is; if several do, there is
//    nothing to decide (every member any branch declares is kept); if none does, go to 3 with them.
// 3. No branch allows its type (or none of several accepted it): repair a copy under each branch
//    and adopt the accepted copy that needed the fewest changes ("7" -> 7 beats "7" -> [7]). A tie
//    between different results, or no accepted copy, leaves the value alone for validation to
//    report: coercing towards one of several equally likely shapes would be a guess.
// Validation-based choices nest at most MAX_UNION_CHECK_DEPTH deep on a path (so their cost stays
// linear in the value) and trials at most MAX_UNION_TRIAL_DEPTH deep within a shared budget. A copy
// adopted from a trial earns the budget its values would have earned in the main walk, so the
// budget grows with the input. A choice the budget stopped is remembered (env.exhaustedAt): the
// value is left as it is, and the answer says the work limit was reached (index.ts) rather than
// that the value cannot conform.
import { stableValueText } from './canonical.js';
import type { Effective } from './effective.js';
import { discriminatedBranch, NO_BRANCH } from './discriminator.js';
import { MAX_UNION_CHECK_DEPTH, MAX_UNION_TRIAL_DEPTH, TRIAL_BUDGET_PER_VALUE, VALIDATION_BUDGET_PER_VALUE } from './limits.js';
import { newSink, type RepairSink } from './repair-detail.js';
import type { SchemaNode } from './schema-index.js';
import { T_OBJECT, typeBitOf } from './type-mask.js';
import { grantValidationBudget } from './validation-budget.js';
import { cloneJson, countValues, isPlainObjectValue } from './value-utils.js';
import type { WalkEnv } from './walk-env.js';
import type { Walk } from './walker.js';

/**
 * Resolves e.unions[0] for `value`. Returns the record to continue with, or null when a trial's
 * repaired copy was adopted (in env.adopted). Sets env.checked when it validated the value.
 */
export function resolveUnion(
  env: WalkEnv, value: unknown, e: Effective, pointer: string, checkDepth: number, sink: RepairSink, walk: Walk,
): Effective | null {
  const model = env.model;
  const group = e.unions![0]!;
  const branches = group.branches;
  const bit = typeBitOf(value);
  let compatible = 0;
  let first = -1;
  for (let i = 0; i < branches.length; i++) {
    if ((model.of(branches[i]!).types & bit) === 0) continue;
    compatible++;
    if (first < 0) first = i;
  }
  if (compatible === 1) return merge(env, e, branches[first]!);
  if (bit === T_OBJECT && isPlainObjectValue(value)) {
    const tagged = discriminatedBranch(model, group, value);
    if (tagged >= 0) return merge(env, e, branches[tagged]!);
    // Every branch is ruled out: nothing to choose, validation reports it.
    if (tagged === NO_BRANCH) return model.withoutUnion(e, 0);
  }
  if (checkDepth >= MAX_UNION_CHECK_DEPTH) return model.withoutUnion(e, 0);
  env.checked = true;

  if (compatible > 1) {
    let fitting = -1;
    let fits = 0;
    for (let i = 0; i < branches.length; i++) {
      if ((model.of(branches[i]!).types & bit) === 0 || !env.validatorAt(group.pointers[i]!)(value)) continue;
      fits++;
      if (fitting < 0) fitting = i;
    }
    if (fits === 1) return merge(env, e, branches[fitting]!);
    if (fits > 1) return model.withoutUnion(e, 0);
  }
  if (env.trialDepth >= MAX_UNION_TRIAL_DEPTH) return model.withoutUnion(e, 0);
  if (env.budget <= 0) return outOfBudget(env, e, pointer);

  // The branch whose repaired copy needed the fewest changes wins; a tie between different results is ambiguous.
  let chosen: { value: unknown; sink: RepairSink } | null = null;
  let chosenText: string | null = null;
  let tied = false;
  for (let i = 0; i < branches.length; i++) {
    const trialSink = newSink();
    env.trialDepth++;
    const repaired = walk(env, cloneJson(value), model.withBranch(e, 0, branches[i]!), pointer, trialSink, true, checkDepth + 1);
    env.trialDepth--;
    if (env.aborted) {
      env.aborted = false;
      return outOfBudget(env, e, pointer);
    }
    if (!env.validatorAt(group.pointers[i]!)(repaired)) continue;
    const changes = trialSink.repairs.length;
    if (chosen === null || changes < chosen.sink.repairs.length) {
      chosen = { value: repaired, sink: trialSink };
      chosenText = null;
      tied = false;
    } else if (changes === chosen.sink.repairs.length && !tied) {
      chosenText ??= stableValueText(chosen.value);
      tied = stableValueText(repaired) !== chosenText;
    }
  }
  if (tied) return model.withoutUnion(e, 0);
  if (chosen === null) return model.withoutUnion(e, 0);
  for (const repair of chosen.sink.repairs) sink.repairs.push(repair);
  for (const warning of chosen.sink.warnings) sink.warnings.push(warning);
  env.adopted = chosen.value;
  if (env.trialDepth === 0) {
    // The main walk skips the adopted subtree: its values earn here what they would have earned there.
    const values = countValues(chosen.value) - 1;
    env.budget += values * TRIAL_BUDGET_PER_VALUE;
    grantValidationBudget(values * VALIDATION_BUDGET_PER_VALUE);
  }
  return null;
}

/** The trial budget is spent: the value stays as it is, and the answer will say so. */
function outOfBudget(env: WalkEnv, e: Effective, pointer: string): Effective {
  env.exhaustedAt ??= pointer;
  return env.model.withoutUnion(e, 0);
}

function merge(env: WalkEnv, e: Effective, branch: SchemaNode): Effective {
  env.merged = true;
  return env.model.withBranch(e, 0, branch);
}

// anyOf/oneOf branches told apart by a member with a const or an enum (a discriminator):
// `{"type": "image", …}` under branches whose `type` is "text", "image", "code" … can only be the
// "image" branch. Every other branch rejects it whatever the repair does, because nothing changes
// that member into their value: it matches none of their members, not even ignoring case and
// surrounding spaces (enum_coercion), and it is of a type they would not coerce. Deciding so costs
// a few lookups per branch: no validation and no trial repair, so such unions stay linear in the
// value however many objects they cover.
import type { Effective, UnionGroup } from './effective.js';
import type { SchemaModel } from './model.js';
import { T_OBJECT, typeBitOf } from './type-mask.js';

/** No branch can accept the value (each is ruled out by one of its members). */
export const NO_BRANCH = -2;
/** The members do not decide between the branches. */
export const UNDECIDED = -1;

/** Per branch record: its members that carry a const or enum (the schema bounds this memo). */
const namesMemo = new WeakMap<Effective, string[]>();

function discriminatorNames(model: SchemaModel, branch: Effective): string[] {
  let names = namesMemo.get(branch);
  if (names === undefined) {
    names = [];
    if (branch.properties !== null) {
      for (const name of branch.properties.keys()) {
        const member = model.member(branch, name);
        if (member !== null && member.enums !== null && member.unions === null) names.push(name);
      }
    }
    namesMemo.set(branch, names);
  }
  return names;
}

/** Whether no repair can make `value` acceptable to `member`'s const/enum. */
function rulesOut(member: Effective, value: unknown): boolean {
  if (member.coerceTo !== 0 && (typeBitOf(value) & member.coerceTo) === 0) return false; // a coercion may change it
  for (const info of member.enums!) if (!info.mayMatch(value)) return true;
  return false;
}

/**
 * The index of the one branch of `group` that `value` (a plain object) may belong to, judged by
 * its discriminator members; NO_BRANCH when its members rule out every branch; UNDECIDED otherwise.
 * Branches whose types exclude objects are left out.
 */
export function discriminatedBranch(model: SchemaModel, group: UnionGroup, value: Record<string, unknown>): number {
  let found = NO_BRANCH;
  let ruledBy = false;
  for (let i = 0; i < group.branches.length; i++) {
    const branch = model.of(group.branches[i]!);
    if ((branch.types & T_OBJECT) === 0) continue;
    let excluded = false;
    for (const name of discriminatorNames(model, branch)) {
      if (!Object.hasOwn(value, name)) continue;
      ruledBy = true;
      if (rulesOut(model.member(branch, name)!, value[name])) {
        excluded = true;
        break;
      }
    }
    if (excluded) continue;
    if (found !== NO_BRANCH) return UNDECIDED;
    found = i;
  }
  return ruledBy ? found : UNDECIDED;
}

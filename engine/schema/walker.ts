// Walks a value against its schema and repairs it in place: type coercion, enum coercion, removal
// of undeclared members, injection of required members, anyOf/oneOf branch choice. Where the
// schema that applies is certain (no anyOf/oneOf branch was guessed on the way), it also notes
// the type and required-member failures it could not repair, so all of them can be reported.
// An explicit stack (not recursion) carries the walk, so a deeply nested value cannot overflow
// the JS stack; it goes exactly as deep as the value does, whatever cycles the $refs contain.
import { tickDeadline } from '../deadline.js';
import { coerce, NOT_COERCIBLE } from './coerce.js';
import type { Effective } from './effective.js';
import { childPointer } from './json-pointer.js';
import { typeFailure } from './explain-error.js';
import { TRIAL_BUDGET_PER_VALUE, VALIDATION_BUDGET_PER_VALUE } from './limits.js';
import { changed, removed, renamedMember, type RepairSink } from './repair-detail.js';
import { declaredNameFor } from './name-match.js';
import { injectRequired } from './required-fields.js';
import { KEEP, REMOVE_FORBIDDEN, undeclaredMemberFate, WALK_ADDITIONAL } from './strict-fields.js';
import { typeBitOf } from './type-mask.js';
import { resolveUnion } from './unions.js';
import { grantValidationBudget } from './validation-budget.js';
import { cloneJson, isPlainObjectValue, setMember } from './value-utils.js';
import type { WalkEnv } from './walk-env.js';

/**
 * Repairs `root` under `rootSchema` and returns the (possibly replaced) root. In a trial, returns
 * early with env.aborted set once the trial budget is spent.
 */
export function walk(
  env: WalkEnv, root: unknown, rootSchema: Effective, rootPointer: string, sink: RepairSink, trial: boolean, rootCheckDepth: number,
): unknown {
  const model = env.model;
  let result = root;
  // Frames as parallel arrays: value, its schema record, its pointer, and where it lives.
  const values: unknown[] = [root];
  const schemas: Effective[] = [rootSchema];
  const pointers: string[] = [rootPointer];
  const parents: (object | null)[] = [null];
  const keys: (string | number)[] = [''];
  // Per frame: union choices made by validation above it (see unions.ts) * 2, plus 1 while no
  // anyOf/oneOf branch was merged in on the way down, i.e. while every schema applied is certain.
  const depthsAndCertainty: number[] = [rootCheckDepth * 2 + (trial ? 0 : 1)];
  const pending: (Effective | null)[] = [];

  while (values.length > 0) {
    tickDeadline(); // a caller's time limit (engine/deadline.ts)
    let value = values.pop();
    let e: Effective | null = schemas.pop()!;
    const pointer = pointers.pop()!;
    const parent = parents.pop()!;
    const key = keys.pop()!;
    const frameFlags = depthsAndCertainty.pop()!;
    let checkDepth = frameFlags >> 1;
    let certain = (frameFlags & 1) === 1 && !e.approximate;
    if (trial) {
      if (--env.budget < 0) { env.aborted = true; return result; }
    } else {
      env.budget += TRIAL_BUDGET_PER_VALUE;
      grantValidationBudget(VALIDATION_BUDGET_PER_VALUE);
    }
    const original = value;

    while (e !== null && e.unions !== null) {
      env.checked = false;
      env.merged = false;
      e = resolveUnion(env, value, e, pointer, checkDepth, sink, walk);
      if (env.checked) checkDepth++;
      if (env.merged) certain = false;
      if (e === null) value = env.adopted; // a branch's trial already walked the whole subtree
    }

    if (e !== null && !e.never) {
      if (e.coerceTo !== 0 && (typeBitOf(value) & e.coerceTo) === 0) {
        const coerced = coerce(value, e.coerceTo);
        if (coerced !== NOT_COERCIBLE) {
          // Containers are copied for the detail: the walk below keeps changing the live one.
          const before = value !== null && typeof value === 'object' ? cloneJson(value) : value;
          const after = coerced !== null && typeof coerced === 'object' ? cloneJson(coerced) : coerced;
          changed(sink, 'type_coercion', pointer, before, after);
          value = coerced;
        }
      }
      if (e.enums !== null) {
        for (const info of e.enums) {
          if (typeof value !== 'string' || info.has(value)) continue;
          const member = info.caseInsensitiveMatch(value);
          if (member === undefined) continue;
          changed(sink, 'enum_coercion', pointer, value, member);
          value = member;
        }
      }
      if (certain && (typeBitOf(value) & e.types) === 0) sink.failures.push(typeFailure(pointer, e.types, value));
    }

    if (value !== original) {
      if (parent === null) result = value;
      else if (Array.isArray(parent)) parent[key as number] = value;
      else setMember(parent as Record<string, unknown>, key as string, value);
    }
    if (e === null || e.any || e.never || value === null || typeof value !== 'object') continue;

    if (Array.isArray(value)) {
      if (e.arrays === null) continue;
      for (let i = value.length - 1; i >= 0; i--) {
        const child = model.element(e, i);
        if (child === null || child.any) continue;
        const item: unknown = value[i];
        if (child.scalarPassThrough && (item === null || typeof item !== 'object') && (typeBitOf(item) & child.types) !== 0) continue;
        values.push(item); schemas.push(child); pointers.push(pointer + '/' + i); parents.push(value); keys.push(i);
        depthsAndCertainty.push(checkDepth * 2 + (certain ? 1 : 0));
      }
      continue;
    }
    if (!e.objectWork || !isPlainObjectValue(value)) continue;
    const target = value;
    const names = Object.keys(target);
    pending.length = names.length;
    let renamed = false;
    for (let i = 0; i < names.length; i++) {
      let name = names[i]!;
      let child = model.member(e, name);
      if (child === null) {
        const declared = declaredNameFor(e, name, target);
        if (declared !== undefined) {
          // repair: `"First Name"` where the schema declares `first_name` — the one property it can mean
          renamedMember(sink, childPointer(pointer, declared), name, declared);
          setMember(target, declared, target[name]);
          delete target[name];
          names[i] = name = declared;
          child = model.member(e, name);
          renamed = true;
        }
      }
      if (child === null) {
        const fate = undeclaredMemberFate(e, name, env.mode);
        if (fate === WALK_ADDITIONAL) {
          child = model.additional(e);
        } else if (fate !== KEEP) {
          removed(sink, childPointer(pointer, name), target[name], fate === REMOVE_FORBIDDEN);
          delete target[name];
        }
      }
      pending[i] = child;
    }
    if (renamed) keepOrder(target, names);
    if (e.required !== null) injectRequired(model, e, target, pointer, sink, certain);
    // Pushed last-to-first so members are visited (and repairs listed) in document order.
    for (let i = names.length - 1; i >= 0; i--) {
      const child = pending[i]!;
      if (child === null || child.any) continue;
      const name = names[i]!;
      const member = target[name];
      if (child.scalarPassThrough && (member === null || typeof member !== 'object') && (typeBitOf(member) & child.types) !== 0) continue;
      values.push(member); schemas.push(child); pointers.push(childPointer(pointer, name)); parents.push(target); keys.push(name);
      depthsAndCertainty.push(checkDepth * 2 + (certain ? 1 : 0));
    }
  }
  return result;
}

export type Walk = typeof walk;

/** Puts the members back in the order `names` gives (a renamed member was appended last). */
function keepOrder(target: Record<string, unknown>, names: readonly string[]): void {
  const values = names.map((name) => target[name]);
  for (const name of names) delete target[name];
  for (let i = 0; i < names.length; i++) if (values[i] !== undefined) setMember(target, names[i]!, values[i]);
}

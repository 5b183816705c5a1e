// What happens to an object member no `properties`/`patternProperties` entry declares:
// - the schema forbids it (additionalProperties/unevaluatedProperties false): removed in both modes,
//   since keeping it can only fail validation;
// - the schema gives it a schema (additionalProperties: {...}): kept and walked with that schema;
// - the schema explicitly allows it (additionalProperties: true): kept;
// - otherwise: removed in strict mode when the schema declares members at all, kept in lenient mode.
// Members that some anyOf/oneOf branch, if/then/else or `required` mentions are never removed.
import type { Mode } from '../types.js';
import { Additional, type Effective } from './effective.js';

export const KEEP = 0;
export const REMOVE = 1;
export const REMOVE_FORBIDDEN = 2;
export const WALK_ADDITIONAL = 3;
export type UndeclaredFate = typeof KEEP | typeof REMOVE | typeof REMOVE_FORBIDDEN | typeof WALK_ADDITIONAL;

export function undeclaredMemberFate(e: Effective, name: string, mode: Mode): UndeclaredFate {
  if (e.isLooselyDeclared(name)) return KEEP;
  switch (e.additional) {
    case Additional.Forbid: return REMOVE_FORBIDDEN;
    case Additional.Schema: return WALK_ADDITIONAL;
    case Additional.Allow: return KEEP;
    default: return mode === 'strict' && e.declaresMembers ? REMOVE : KEEP;
  }
}

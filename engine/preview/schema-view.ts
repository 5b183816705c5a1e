// What a schema makes of a progressive preview's members, one member at a time and without the
// whole value: the schema pass (engine/schema/walker.ts) coerces a scalar, matches an enum and drops
// an undeclared member the same way, but only once the stream has ended. Here a member is judged as
// it appears, so a preview shows it the way finalize will (docs/streaming.md "Preview modes").
// Unions (anyOf/oneOf) choose a branch from the whole value: below one, members are shown as written.
import { coerce, NOT_COERCIBLE } from '../schema/coerce.js';
import type { Effective } from '../schema/effective.js';
import type { SchemaModel } from '../schema/model.js';
import { KEEP, undeclaredMemberFate, WALK_ADDITIONAL } from '../schema/strict-fields.js';
import { T_STRING, typeBitOf } from '../schema/type-mask.js';
import type { Mode } from '../types.js';

/** A member the preview leaves out: finalize removes it, or it does not (yet) conform. */
export const HIDDEN: unique symbol = Symbol('hidden');
/** A member's schema record: null when no keyword applies to it (shown as written). */
export type MemberSchema = Effective | null | typeof HIDDEN;

export class SchemaView {
  constructor(private readonly model: SchemaModel, private readonly mode: Mode) {}

  get root(): Effective | null {
    return this.model.root;
  }

  /** The record of member `name` of an object under `e`; HIDDEN when finalize removes the member. */
  member(e: Effective | null, name: string): MemberSchema {
    if (e === null || e.any || e.never || e.unions !== null || !e.objectWork) return null;
    const child = this.model.member(e, name);
    if (child !== null) return child;
    const fate = undeclaredMemberFate(e, name, this.mode);
    if (fate === WALK_ADDITIONAL) return this.model.additional(e);
    return fate === KEEP ? null : HIDDEN;
  }

  /** The record of element `index` of an array under `e`. */
  element(e: Effective | null, index: number): Effective | null {
    if (e === null || e.any || e.never || e.unions !== null || e.arrays === null) return null;
    return this.model.element(e, index);
  }

  /**
   * Whether a string under `e` is kept as written, so it may be shown while it grows: no enum or
   * const to match, no union to choose, and strings allowed (nothing to coerce it to).
   */
  growsAsString(e: Effective | null): boolean {
    if (e === null || e.any) return true;
    return e.unions === null && e.enums === null && (e.types & T_STRING) !== 0;
  }

  /** A finished scalar as finalize will have it under `e` (coerced, enum-matched), or HIDDEN when it will not conform. */
  scalar(e: Effective | null, value: unknown): unknown {
    if (e === null || e.any || e.never || e.unions !== null) return value;
    let out = value;
    if (e.coerceTo !== 0 && (typeBitOf(out) & e.coerceTo) === 0) {
      const coerced = coerce(out, e.coerceTo);
      if (coerced !== NOT_COERCIBLE) out = coerced;
    }
    if (e.enums !== null) {
      for (const info of e.enums) {
        if (typeof out !== 'string' || info.has(out)) continue;
        const member = info.caseInsensitiveMatch(out);
        if (member !== undefined) out = member;
      }
      for (const info of e.enums) if (!info.has(out)) return HIDDEN;
    }
    return (typeBitOf(out) & e.types) === 0 ? HIDDEN : out;
  }
}

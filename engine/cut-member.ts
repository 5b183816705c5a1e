// A reply cut before its root closed, read through a schema (docs/schema.md "Cut replies"): the
// member the cut fell inside is dropped when the schema rejects it (a cut enum string, a cut date),
// and a nested object the cut left open may lack a required member — reported, not a failure. The
// repair fails only when the root lacks a required member or a member written whole is wrong.
// Runs only after the schema pass failed on a cut reply: other replies never pay for it.
import { makeWarning } from './error-codes.js';
import { childPointer } from './schema/json-pointer.js';
import { applySchema, type SchemaOutcome } from './schema/index.js';
import { cloneJson } from './schema/value-utils.js';
import type { Mode, RepairDetail, RepairError } from './types.js';

/** Where a reply was cut: the scanner's cutPath (names, indices to the innermost open container) and cutLeaf. */
export interface CutShape {
  path: Array<string | number>;
  /** The last token of `path` names a scalar the end of the input fell inside. */
  leaf: boolean;
  /** Input offset where the cut value starts (the TRUNCATED_OUTPUT warning's position). */
  position: number;
}

export interface CutOutcome {
  outcome: SchemaOutcome;
  /** The syntax detail reporting the dropped member, when one was dropped. */
  dropped: RepairDetail | null;
}

/**
 * The schema pass over `value` (the value as read) of a reply cut at `cut`. The string or number
 * the cut fell inside is dropped before the pass: its end is unknown (`"750` may have been
 * `"75008"`, `12` may have been `125`), and a tool's arguments are executed. A literal the cut fell
 * inside is whole (`tru` can only be `true`) and is dropped only when the schema rejects it.
 * Required members missing from the containers the cut left open, other than the root, are
 * reported as warnings (CUT_OBJECT_INCOMPLETE), not failures.
 */
export function schemaOverCut(value: unknown, schema: unknown, mode: Mode, cut: CutShape): CutOutcome {
  const open: string[] = [''];
  let pointer = '';
  const containers = cut.leaf ? cut.path.length - 1 : cut.path.length;
  for (let k = 0; k < containers; k++) {
    pointer = childPointer(pointer, cut.path[k]!);
    open.push(pointer);
  }
  const leafPointer = cut.leaf ? childPointer(pointer, cut.path[cut.path.length - 1]!) : '';
  let dropped: RepairDetail | null = null;
  let outcome: SchemaOutcome;
  const leaf = cut.leaf ? memberAt(value, cut.path) : undefined;
  if (typeof leaf === 'string' || typeof leaf === 'number') {
    dropped = dropLeaf(value, cut, leafPointer);
    outcome = applySchema(value, schema, mode);
  } else {
    // The pass changes the value in place: a second pass without the literal starts from a copy.
    const copy = cut.leaf ? cloneJson(value) : value;
    outcome = applySchema(value, schema, mode);
    if (cut.leaf && outcome.errors.some((e) => e.field === leafPointer || (e.field ?? '').startsWith(leafPointer + '/'))) {
      dropped = dropLeaf(copy, cut, leafPointer);
      outcome = applySchema(copy, schema, mode);
    }
  }
  if (outcome.errors.length === 0) return { outcome, dropped };
  const kept: RepairError[] = [];
  const warnings = outcome.warnings.slice();
  for (const error of outcome.errors) {
    if (!missingInOpenContainer(error, open)) {
      kept.push(error);
      continue;
    }
    // repair: a nested object the cut left open lacks a required member: the cut explains it, so it
    // is reported, not a failure (a root that lacks one still fails)
    warnings.push(makeWarning('CUT_OBJECT_INCOMPLETE', `${error.message} The reply was cut inside the object that holds it.`, { field: error.field! }));
  }
  return { outcome: { value: outcome.value, repairs: outcome.repairs, warnings, errors: kept }, dropped };
}

function dropLeaf(value: unknown, cut: CutShape, leafPointer: string): RepairDetail {
  const cutValue = removeLast(value, cut.path);
  // repair: the member the cut fell inside is dropped, never completed by a guess; the members
  // written whole before it stand
  return { type: 'removed_truncated_member', confidence: 'medium', safe: false, position: cut.position, count: 1,
    field: leafPointer, original_value: cutValue };
}

/** A missing required member whose object is one of the open containers other than the root. */
function missingInOpenContainer(error: RepairError, open: string[]): boolean {
  if (error.compact_code !== 'MISSING_REQUIRED_FIELD' || error.field === undefined) return false;
  const parent = error.field.slice(0, error.field.lastIndexOf('/'));
  return parent !== '' && open.includes(parent);
}

function containerOf(root: unknown, path: Array<string | number>): Record<string | number, unknown> {
  let container = root as Record<string | number, unknown>;
  for (let k = 0; k < path.length - 1; k++) container = container[path[k]!] as Record<string | number, unknown>;
  return container;
}

function memberAt(root: unknown, path: Array<string | number>): unknown {
  return containerOf(root, path)[path[path.length - 1]!];
}

/** Removes the member at `path` (its last token names it in its container) and returns its value. */
function removeLast(root: unknown, path: Array<string | number>): unknown {
  const container = containerOf(root, path);
  if (Array.isArray(container)) return container.pop();
  const last = path[path.length - 1] as string;
  const value = container[last];
  delete container[last];
  return value;
}

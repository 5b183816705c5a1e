// Builders for the schema pass's RepairDetail entries (one per changed value) and its warning.
import { makeWarning } from '../error-codes.js';
import { REPAIR_KINDS } from '../repair-kinds.js';
import type { RepairDetail, RepairError, Warning } from '../types.js';

export interface RepairSink {
  repairs: RepairDetail[];
  warnings: Warning[];
  /** Failures the walk is sure of (wrong type that could not be coerced, missing required member). */
  failures: RepairError[];
}

export function newSink(): RepairSink {
  return { repairs: [], warnings: [], failures: [] };
}

type SchemaRepairType = 'type_coercion' | 'removed_extra_field' | 'injected_required_field' | 'enum_coercion';

/** enum_coercion guesses which member was meant; the others follow from the schema alone. */
const SAFE: Record<SchemaRepairType, boolean> = {
  type_coercion: true,
  removed_extra_field: true,
  injected_required_field: true,
  enum_coercion: false,
};

export function changed(sink: RepairSink, type: 'type_coercion' | 'enum_coercion', field: string, original: unknown, repaired: unknown): void {
  sink.repairs.push({
    type, confidence: REPAIR_KINDS[type].confidence, safe: SAFE[type], field,
    original_value: original, repaired_value: repaired,
  });
}

export function removed(sink: RepairSink, field: string, original: unknown, forbidden: boolean): void {
  sink.repairs.push({
    type: 'removed_extra_field', confidence: REPAIR_KINDS.removed_extra_field.confidence, safe: true, field,
    original_value: original,
  });
  const why = forbidden ? 'the schema forbids undeclared fields (additionalProperties: false)' : 'strict mode';
  const warning = makeWarning('EXTRA_FIELD_REMOVED',
    `Field "${field}" is not declared by the schema and was removed (${why}).`, { field });
  // The registry's suggestion (switch to lenient) would not keep a field the schema itself forbids.
  if (forbidden) warning.suggestion = 'Declare the field in the schema, or allow it with additionalProperties.';
  sink.warnings.push(warning);
}

/** A member renamed to the declared property its name matches once case and word joins are ignored (name-match.ts). */
export function renamedMember(sink: RepairSink, field: string, original: string, repaired: string): void {
  sink.repairs.push({
    type: 'matched_field_name', confidence: REPAIR_KINDS.matched_field_name.confidence, safe: false, field,
    original_value: original, repaired_value: repaired,
  });
}

export function injected(sink: RepairSink, field: string, value: unknown): void {
  sink.repairs.push({
    type: 'injected_required_field', confidence: REPAIR_KINDS.injected_required_field.confidence, safe: true, field,
    repaired_value: value,
  });
}

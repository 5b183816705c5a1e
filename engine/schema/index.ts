// Placeholder contract for the schema pass (issue 3 fills it in).
import type { Mode, RepairDetail, RepairError, Warning } from '../types.js';

export interface SchemaOutcome {
  /** The value after coercion, removal and injection (may be the same object, mutated). */
  value: unknown;
  repairs: RepairDetail[];
  warnings: Warning[];
  /** Non-empty means the value does not conform (SCHEMA_VALIDATION_FAILED) or the schema is bad (INVALID_REQUEST). */
  errors: RepairError[];
}

export function applySchema(value: unknown, _schema: unknown, _mode: Mode): SchemaOutcome {
  return { value, repairs: [], warnings: [], errors: [] };
}

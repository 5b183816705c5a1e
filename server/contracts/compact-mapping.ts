// Envelope RepairResponse -> compact batch response (spec "Batch response (compact contract)").
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { compactRepairName } from '../../engine/repair-kinds.js';
import type { RepairError, RepairResponse, ResponseConfidence, Warning } from '../../engine/types.js';

export interface CompactSuccess {
  valid: true;
  repaired: string;
  confidence: ResponseConfidence;
  warnings: Warning[];
  repairs: string[];
}

export interface CompactFailure {
  valid: false;
  confidence: 'n/a';
  errors: RepairError[];
}

/** Envelope codes that have a compact name; every other code is the same in both contracts. */
const COMPACT_CODE: Partial<Record<string, ErrorCode>> = {
  UNRECOVERABLE_SYNTAX_ERROR: 'INVALID_JSON_SYNTAX',
  INTERNAL_ERROR: 'UNKNOWN_REPAIR_ERROR',
};

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The compact code takes its own severity and recoverability from the registry; the message stays. */
export function toCompactError(error: RepairError): RepairError {
  let code = COMPACT_CODE[error.code];
  if (error.code === 'SCHEMA_VALIDATION_FAILED' && error.compact_code !== undefined && isErrorCode(error.compact_code)) {
    code = error.compact_code;
  }
  if (code === undefined) return error;
  const entry = ERROR_CODES[code];
  const mapped: RepairError = { code, message: error.message, severity: entry.severity, recoverable: entry.recoverable };
  if (error.field !== undefined) mapped.field = error.field;
  if (error.suggestion !== undefined) mapped.suggestion = error.suggestion;
  return mapped;
}

export function compactFailure(errors: readonly RepairError[]): CompactFailure {
  return { valid: false, confidence: 'n/a', errors: errors.map(toCompactError) };
}

/** Compact repair names, each once, in the order the repairs were first reported. */
function repairNames(response: RepairResponse): string[] {
  const applied = response.metadata.repairs_applied;
  const names: string[] = [];
  for (let i = 0; i < applied.length; i++) {
    const name = compactRepairName(applied[i]!.type);
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

export function toCompact(response: RepairResponse): CompactSuccess | CompactFailure {
  if (!response.success) return compactFailure(response.metadata.errors);
  return {
    valid: true,
    repaired: JSON.stringify(response.repaired),
    confidence: response.metadata.confidence,
    warnings: response.metadata.warnings,
    repairs: repairNames(response),
  };
}

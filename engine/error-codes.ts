// The engine's error and warning codes: the ones repair itself can produce. The service adds the
// codes only it emits (transport, keys, limits, sessions) in server/contracts/error-codes.ts, which
// extends these tables with the same entry shape and builders; the docs (docs/errors.md) list both.
import type { ErrorSeverity, RepairError, Warning, WarningSeverity } from './types.js';

export interface ErrorEntry {
  severity: ErrorSeverity;
  recoverable: boolean;
  message: string;
  suggestion?: string;
}

export const ERROR_CODES = {
  // Envelope contract (spec: Errors).
  INVALID_REQUEST: { severity: 'critical', recoverable: false, message: 'Missing or invalid parameters.' },
  UNRECOVERABLE_SYNTAX_ERROR: {
    severity: 'critical', recoverable: false, message: 'No recoverable JSON structure was found in the input.',
  },
  SCHEMA_VALIDATION_FAILED: {
    severity: 'high', recoverable: false, message: 'The repaired JSON does not match the schema.',
  },
  SCHEMA_WORK_LIMIT_EXCEEDED: {
    severity: 'high', recoverable: false,
    message: 'The schema pass reached its work limit before it could repair the value; it may or may not be repairable.',
    suggestion: 'Give anyOf/oneOf branches a distinguishing member (a const such as "type": {"const": "text"}) or distinct types, or send less data per request.',
  },
  WORK_DEADLINE_EXCEEDED: {
    severity: 'critical', recoverable: false,
    message: 'The repair did not finish within its time limit and was stopped.',
    suggestion: 'Send less text per request, or split the reply.',
  },
  // Compact contract (spec: "Compact contract error codes").
  MISSING_REQUIRED_FIELD: { severity: 'high', recoverable: false, message: 'A required field is missing.' },
  TYPE_COERCION_FAILED: { severity: 'medium', recoverable: true, message: 'A value could not be coerced to the schema type.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorExtra { field?: string; suggestion?: string; compact_code?: string }

/** Builds the plain error object that crosses thread boundaries and goes on the wire. */
export function makeError(code: ErrorCode, message?: string, extra?: ErrorExtra): RepairError {
  return errorFromEntry(code, ERROR_CODES[code], message, extra);
}

/** makeError for a registry that extends this one (the server's): one way to build an error. */
export function errorFromEntry(code: string, entry: ErrorEntry, message?: string, extra?: ErrorExtra): RepairError {
  const error: RepairError = {
    code,
    message: message ?? entry.message,
    severity: entry.severity,
    recoverable: entry.recoverable,
  };
  if (extra?.field !== undefined) error.field = extra.field;
  const suggestion = extra?.suggestion ?? entry.suggestion;
  if (suggestion !== undefined) error.suggestion = suggestion;
  if (extra?.compact_code !== undefined) error.compact_code = extra.compact_code;
  return error;
}

export interface WarningEntry { severity: WarningSeverity; message: string; suggestion?: string }

export const WARNING_CODES = {
  NAN_REPLACED: { severity: 'medium', message: 'NaN or Infinity is not JSON; it was replaced with null.' },
  EXTRA_FIELD_REMOVED: {
    severity: 'medium', message: 'A field not declared by the schema was removed (strict mode).',
    suggestion: "Use mode 'lenient' to keep undeclared fields.",
  },
  TRUNCATED_OUTPUT: {
    severity: 'medium',
    message: 'The reply ends before its value closes, inside a key, string, number or literal or right after a colon or comma (the model likely hit its output-token limit): what followed the cut is unknown.',
    suggestion: 'Raise the model\'s output-token limit, or ask for a shorter reply.',
  },
  VALUES_LEFT_OUT: {
    severity: 'medium',
    message: 'The reply holds more than its answer: text dropped around the answer holds data of its own (another JSON value, or key: value lines), which was left out.',
    suggestion: 'Ask the model for one JSON value, or pass a schema so the one that fits is chosen.',
  },
  CUT_OBJECT_INCOMPLETE: {
    severity: 'medium',
    message: 'An object the reply was cut inside lacks a required member: the value does not match the schema there.',
    suggestion: 'Raise the model\'s output-token limit, or ask for a shorter reply.',
  },
  SEVERAL_ANSWERS: {
    severity: 'medium',
    message: 'The reply holds several JSON values and no retraction says which one is meant; the first answer was taken and the others left out.',
    suggestion: 'Ask the model for one JSON value, or pass a schema that tells the values apart.',
  },
  CORRECTION_NOT_APPLIED: {
    severity: 'medium',
    message: 'The reply retracts its answer but writes only part of a new one (one member); the earlier answer was kept, unpatched.',
    suggestion: 'Ask the model to write the whole corrected JSON.',
  },
  AMBIGUOUS_CANDIDATES: {
    severity: 'medium', message: 'The reply holds several JSON values that fit the schema equally well; the first was taken.',
    suggestion: 'Ask the model for one JSON value, or make the schema tell the values apart.',
  },
  SCHEMA_WORK_LIMIT_REACHED: {
    severity: 'medium',
    message: 'The schema pass reached its work limit: from this field on, anyOf/oneOf branches were not tried for repairs (the result was still validated and matches the schema).',
    suggestion: 'Give anyOf/oneOf branches a distinguishing member (a const such as "type": {"const": "text"}) or distinct types.',
  },
  STREAMED_PREFIX_KEPT: {
    severity: 'high',
    message: 'Healing kept the value the reply began with: read whole, the reply gives another value (a second value after the first, a member rewritten after it was read), but a stream of it had already sent the beginning.',
    suggestion: 'Ask the model for one JSON value; /v1/repair reads the whole reply.',
  },
} as const satisfies Record<string, WarningEntry>;

export type WarningCode = keyof typeof WARNING_CODES;

export interface WarningExtra { field?: string; position?: number }

export function makeWarning(code: WarningCode, message?: string, extra?: WarningExtra): Warning {
  return warningFromEntry(code, WARNING_CODES[code], message, extra);
}

/** makeWarning for a registry that extends this one (the server's). */
export function warningFromEntry(code: string, entry: WarningEntry, message?: string, extra?: WarningExtra): Warning {
  const warning: Warning = { code, message: message ?? entry.message, severity: entry.severity };
  if (extra?.field !== undefined) warning.field = extra.field;
  if (entry.suggestion !== undefined) warning.suggestion = entry.suggestion;
  if (extra?.position !== undefined) warning.position = extra.position;
  return warning;
}

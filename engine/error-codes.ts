// The one registry of error and warning codes. The server, the workers, the docs
// (docs/errors.md) and test/engine/error-codes.test.ts all read this table; add a code here first.
import type { ErrorSeverity, RepairError, Warning, WarningSeverity } from './types.js';

interface ErrorEntry {
  severity: ErrorSeverity;
  recoverable: boolean;
  message: string;
  suggestion?: string;
  /** HTTP status used by the compact contract where it is not 200 (only rate limiting, per spec). */
  compactStatus?: number;
}

export const ERROR_CODES = {
  // Envelope contract (spec: Errors).
  INVALID_REQUEST: { severity: 'critical', recoverable: false, message: 'Missing or invalid parameters.' },
  PAYLOAD_TOO_LARGE: {
    severity: 'critical', recoverable: false, message: 'Input is larger than the 5 MiB limit.',
    suggestion: 'Send less than 5 MiB of UTF-8, or stream it in chunks.',
  },
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
  SESSION_NOT_FOUND: {
    severity: 'critical', recoverable: true, message: 'The streaming session expired or does not exist.',
    suggestion: 'Start a new session.',
  },
  BUFFER_SIZE_EXCEEDED: {
    severity: 'critical', recoverable: false,
    message: 'The session buffer would exceed 5 MiB; the session was terminated.',
  },
  SERVICE_UNAVAILABLE: {
    severity: 'critical', recoverable: true, message: 'The server is at maximum capacity.',
    suggestion: 'Retry with exponential backoff.',
  },
  INTERNAL_ERROR: { severity: 'critical', recoverable: false, message: 'Unexpected server error.' },
  INVALID_API_KEY: {
    severity: 'critical', recoverable: false, message: 'The API key is invalid or revoked.',
    suggestion: 'Generate a new API key in the console.',
  },
  RATE_LIMIT_EXCEEDED: {
    severity: 'high', recoverable: true, message: 'Rate limit exceeded.', compactStatus: 429,
    suggestion: 'Wait until the window resets (see X-RateLimit-Reset).',
  },
  NOT_FOUND: { severity: 'critical', recoverable: false, message: 'No such endpoint.' },
  METHOD_NOT_ALLOWED: { severity: 'critical', recoverable: false, message: 'Method not allowed on this endpoint.' },
  // Compact contract (spec: "Compact contract error codes").
  INVALID_JSON_SYNTAX: { severity: 'critical', recoverable: false, message: 'No recoverable JSON structure was found.' },
  MISSING_REQUIRED_FIELD: { severity: 'high', recoverable: false, message: 'A required field is missing.' },
  TYPE_COERCION_FAILED: { severity: 'medium', recoverable: true, message: 'A value could not be coerced to the schema type.' },
  UNKNOWN_REPAIR_ERROR: { severity: 'critical', recoverable: false, message: 'Unexpected repair error.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Builds the plain error object that crosses thread boundaries and goes on the wire. */
export function makeError(
  code: ErrorCode,
  message?: string,
  extra?: { field?: string; suggestion?: string; compact_code?: string },
): RepairError {
  const entry: ErrorEntry = ERROR_CODES[code];
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

interface WarningEntry { severity: WarningSeverity; message: string; suggestion?: string }

export const WARNING_CODES = {
  NAN_REPLACED: { severity: 'medium', message: 'NaN or Infinity is not JSON; it was replaced with null.' },
  EXTRA_FIELD_REMOVED: {
    severity: 'medium', message: 'A field not declared by the schema was removed (strict mode).',
    suggestion: "Use mode 'lenient' to keep undeclared fields.",
  },
  SCHEMA_WORK_LIMIT_REACHED: {
    severity: 'medium',
    message: 'The schema pass reached its work limit: from this field on, anyOf/oneOf branches were not tried for repairs (the result was still validated and matches the schema).',
    suggestion: 'Give anyOf/oneOf branches a distinguishing member (a const such as "type": {"const": "text"}) or distinct types.',
  },
  QUOTA_EXCEEDED: {
    severity: 'medium', message: "The monthly repair quota is used up; service is degraded to a tenth of the tier's per-minute rate (free: 5 a minute).",
    suggestion: 'Upgrade the tier or wait for the monthly reset.',
  },
} as const satisfies Record<string, WarningEntry>;

export type WarningCode = keyof typeof WARNING_CODES;

export function makeWarning(
  code: WarningCode,
  message?: string,
  extra?: { field?: string; position?: number },
): Warning {
  const entry: WarningEntry = WARNING_CODES[code];
  const warning: Warning = { code, message: message ?? entry.message, severity: entry.severity };
  if (extra?.field !== undefined) warning.field = extra.field;
  if (entry.suggestion !== undefined) warning.suggestion = entry.suggestion;
  if (extra?.position !== undefined) warning.position = extra.position;
  return warning;
}

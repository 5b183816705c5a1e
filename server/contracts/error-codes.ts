// The service's registry of error and warning codes: the engine's (engine/error-codes.ts) plus the
// ones only the service emits (transport, keys, limits, sessions, capacity). The server, its
// workers, /openapi.json, /metrics and docs/errors.md all read these tables; add a code here (or, for
// one the engine itself produces, in the engine's table first). Listed in the spec's order.
import {
  ERROR_CODES as ENGINE_ERROR_CODES,
  WARNING_CODES as ENGINE_WARNING_CODES,
  errorFromEntry,
  warningFromEntry,
  type ErrorEntry,
  type ErrorExtra,
  type WarningEntry,
  type WarningExtra,
} from '../../engine/error-codes.js';
import type { RepairError, Warning } from '../../engine/types.js';

const E = ENGINE_ERROR_CODES;

export const ERROR_CODES = {
  // Envelope contract (spec: Errors).
  INVALID_REQUEST: E.INVALID_REQUEST,
  PAYLOAD_TOO_LARGE: {
    severity: 'critical', recoverable: false, message: 'Input is larger than the payload limit (MAX_PAYLOAD_BYTES).',
    suggestion: 'Send less UTF-8 than the limit, or stream it in chunks.',
  },
  UNRECOVERABLE_SYNTAX_ERROR: E.UNRECOVERABLE_SYNTAX_ERROR,
  SCHEMA_VALIDATION_FAILED: E.SCHEMA_VALIDATION_FAILED,
  SCHEMA_WORK_LIMIT_EXCEEDED: E.SCHEMA_WORK_LIMIT_EXCEEDED,
  WORK_DEADLINE_EXCEEDED: E.WORK_DEADLINE_EXCEEDED,
  SESSION_NOT_FOUND: {
    severity: 'critical', recoverable: true, message: 'The streaming session expired or does not exist.',
    suggestion: 'Start a new session.',
  },
  BUFFER_SIZE_EXCEEDED: {
    severity: 'critical', recoverable: false,
    message: 'The session buffer would exceed the payload limit (MAX_PAYLOAD_BYTES); the session was terminated.',
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
    severity: 'high', recoverable: true, message: 'Rate limit exceeded.',
    suggestion: 'Wait until the window resets (see X-RateLimit-Reset).',
  },
  NOT_FOUND: { severity: 'critical', recoverable: false, message: 'No such endpoint.' },
  METHOD_NOT_ALLOWED: { severity: 'critical', recoverable: false, message: 'Method not allowed on this endpoint.' },
  // Compact contract (spec: "Compact contract error codes").
  INVALID_JSON_SYNTAX: { severity: 'critical', recoverable: false, message: 'No recoverable JSON structure was found.' },
  MISSING_REQUIRED_FIELD: E.MISSING_REQUIRED_FIELD,
  TYPE_COERCION_FAILED: E.TYPE_COERCION_FAILED,
  UNKNOWN_REPAIR_ERROR: { severity: 'critical', recoverable: false, message: 'Unexpected repair error.' },
} as const satisfies Record<string, ErrorEntry> & Record<keyof typeof ENGINE_ERROR_CODES, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function makeError(code: ErrorCode, message?: string, extra?: ErrorExtra): RepairError {
  return errorFromEntry(code, ERROR_CODES[code], message, extra);
}

export const WARNING_CODES = {
  ...ENGINE_WARNING_CODES,
  QUOTA_EXCEEDED: {
    severity: 'medium', message: "The monthly repair quota is used up; service is degraded to a tenth of the tier's per-minute rate (X-RateLimit-Limit).",
    suggestion: 'Upgrade the tier or wait for the monthly reset.',
  },
} as const satisfies Record<string, WarningEntry>;

export type WarningCode = keyof typeof WARNING_CODES;

export function makeWarning(code: WarningCode, message?: string, extra?: WarningExtra): Warning {
  return warningFromEntry(code, WARNING_CODES[code], message, extra);
}

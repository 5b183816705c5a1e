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
    // Not "stream it": a streaming session's buffer has the same limit (docs/operations.md).
    suggestion: 'Send less UTF-8 than the limit; a streaming session holds no more. Split the input, or raise MAX_PAYLOAD_BYTES on your own server.',
  },
  UNRECOVERABLE_SYNTAX_ERROR: E.UNRECOVERABLE_SYNTAX_ERROR,
  SCHEMA_VALIDATION_FAILED: E.SCHEMA_VALIDATION_FAILED,
  SCHEMA_WORK_LIMIT_EXCEEDED: E.SCHEMA_WORK_LIMIT_EXCEEDED,
  SCHEMA_TOO_COMPLEX: {
    severity: 'critical', recoverable: false,
    message: 'The schema is over the complexity budget (anyOf/oneOf members, objects, members per object, or compile time).',
    suggestion: 'Split the schema or give the value fewer alternatives.',
  },
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
  // The gateway (/v1/chat/completions), answered in the OpenAI error shape.
  UPSTREAM_NOT_CONFIGURED: {
    severity: 'critical', recoverable: false, message: 'The gateway has no upstream: the operator has not set UPSTREAM_URL.',
    suggestion: 'Set UPSTREAM_URL to an OpenAI-compatible base URL ending in /v1.',
  },
  UPSTREAM_UNREACHABLE: {
    severity: 'critical', recoverable: true, message: 'The upstream model API could not be reached.',
    suggestion: 'Retry with exponential backoff.',
  },
  UPSTREAM_TIMEOUT: {
    severity: 'critical', recoverable: true, message: 'The upstream model API did not answer in time (UPSTREAM_TIMEOUT_MS).',
    suggestion: 'Retry, or ask the operator to raise UPSTREAM_TIMEOUT_MS.',
  },
  UPSTREAM_ERROR: {
    severity: 'high', recoverable: true, message: 'The upstream model API answered with an error; its status and body are passed on.',
  },
  LOW_CONFIDENCE: {
    severity: 'high', recoverable: true, message: 'A healed part of the answer is below the confidence asked for (X-Jsonmend-Min-Confidence).',
    suggestion: 'Retry the request; the report says which part was repaired and how.',
  },
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

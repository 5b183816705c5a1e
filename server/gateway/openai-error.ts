// The gateway's own errors in the OpenAI error shape `{ "error": { message, type, param, code } }`,
// with the HTTP status an OpenAI client expects: the official clients raise their typed errors
// (AuthenticationError, RateLimitError, ...) from the status, and read `error.message` from the body.
import type { RepairError } from '../../engine/types.js';

export interface OpenAiErrorAnswer {
  status: number;
  body: string;
  /** The registry code, for the request record. */
  errorCode: string;
}

/** Status and OpenAI `type` per registry code; anything else is a 500 server_error. */
const SHAPES: Readonly<Record<string, readonly [number, string]>> = {
  INVALID_REQUEST: [400, 'invalid_request_error'],
  PAYLOAD_TOO_LARGE: [413, 'invalid_request_error'],
  INVALID_API_KEY: [401, 'authentication_error'],
  RATE_LIMIT_EXCEEDED: [429, 'rate_limit_error'],
  SERVICE_UNAVAILABLE: [503, 'server_error'],
  UPSTREAM_NOT_CONFIGURED: [503, 'server_error'],
  UPSTREAM_UNREACHABLE: [502, 'upstream_error'],
  UPSTREAM_TIMEOUT: [504, 'upstream_error'],
  LOW_CONFIDENCE: [422, 'jsonmend_low_confidence'],
};

/**
 * `code` is the registry code in lower case (OpenAI's own codes are lower case: `invalid_api_key`,
 * `rate_limit_exceeded` read the same). `extra` adds members beside `error` (the 422's report).
 */
export function openAiError(error: RepairError, extra?: Record<string, unknown>): OpenAiErrorAnswer {
  const [status, type] = SHAPES[error.code] ?? [500, 'server_error'];
  const message = error.suggestion === undefined ? error.message : `${error.message} ${error.suggestion}`;
  const body = { error: { message, type, param: error.field ?? null, code: error.code.toLowerCase() }, ...extra };
  return { status, body: JSON.stringify(body), errorCode: error.code };
}

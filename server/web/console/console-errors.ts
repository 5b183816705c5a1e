// The console API's error registry. The console is the web page's own JSON API, not one of the
// repair contracts, so its failures use HTTP statuses and one small shape: `{ error: { code, message } }`.
// Codes are stable; docs/web.md lists them. Metrics fold each into the nearest repair-registry code.
import type { ErrorCode } from '../../contracts/error-codes.js';

interface ConsoleErrorEntry {
  status: number;
  message: string;
  /** The registry's code (server/contracts/error-codes.ts) the request is counted under in /metrics. */
  outcome: ErrorCode;
}

export const CONSOLE_ERRORS = {
  INVALID_REQUEST: { status: 400, message: 'The request body is not what this endpoint expects.', outcome: 'INVALID_REQUEST' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as JSON with Content-Type: application/json.', outcome: 'INVALID_REQUEST' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is too large for this endpoint.', outcome: 'INVALID_REQUEST' },
  INVALID_EMAIL: { status: 400, message: 'Enter a valid email address.', outcome: 'INVALID_REQUEST' },
  WEAK_PASSWORD: { status: 400, message: 'Use a password of 8 to 128 characters that is not a common one.', outcome: 'INVALID_REQUEST' },
  INVALID_KEY_NAME: { status: 400, message: 'Name the key with 1 to 64 printable characters.', outcome: 'INVALID_REQUEST' },
  EMAIL_TAKEN: { status: 409, message: 'An account with this email already exists; sign in instead.', outcome: 'INVALID_REQUEST' },
  INVALID_CREDENTIALS: { status: 401, message: 'Wrong email or password.', outcome: 'INVALID_API_KEY' },
  NOT_SIGNED_IN: { status: 401, message: 'Sign in first.', outcome: 'INVALID_API_KEY' },
  CSRF_REJECTED: {
    status: 403, message: 'The request did not carry a valid CSRF token for this session; reload the page.', outcome: 'INVALID_REQUEST',
  },
  KEY_NOT_FOUND: { status: 404, message: 'You have no active key with this id.', outcome: 'NOT_FOUND' },
  KEY_LIMIT_REACHED: { status: 409, message: 'You have the most active keys an account may hold; revoke one first.', outcome: 'INVALID_REQUEST' },
  KEY_CREATION_LIMIT: { status: 429, message: 'This account has made as many keys as it may in a day; try again later.', outcome: 'RATE_LIMIT_EXCEEDED' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many sign-in attempts; wait and try again.', outcome: 'RATE_LIMIT_EXCEEDED' },
  BUSY: { status: 503, message: 'The console is busy; try again in a moment.', outcome: 'SERVICE_UNAVAILABLE' },
  INTERNAL_ERROR: { status: 500, message: 'Unexpected server error.', outcome: 'INTERNAL_ERROR' },
} as const satisfies Record<string, ConsoleErrorEntry>;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

export interface ConsoleFailure {
  readonly code: ConsoleErrorCode;
  readonly message: string;
  /** Seconds; sent as Retry-After (TOO_MANY_ATTEMPTS, KEY_CREATION_LIMIT, BUSY). */
  readonly retryAfterSeconds?: number;
}

export function consoleFailure(code: ConsoleErrorCode, message?: string, retryAfterSeconds?: number): ConsoleFailure {
  const failure: { code: ConsoleErrorCode; message: string; retryAfterSeconds?: number } = {
    code, message: message ?? CONSOLE_ERRORS[code].message,
  };
  if (retryAfterSeconds !== undefined) failure.retryAfterSeconds = retryAfterSeconds;
  return failure;
}


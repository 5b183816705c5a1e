// The one error the client throws. A repair that ran and failed (no JSON found, the schema not met)
// is not an error here: it resolves with `success: false`, as the service answers it. Everything
// else — the service refusing or failing the request, or no usable answer at all — throws this.
import type { RepairError } from '../engine/types.js';

/**
 * Codes the client adds to the service's own (docs/errors.md):
 * - `NETWORK_ERROR`: fetch failed (connection refused or reset, DNS). Recoverable.
 * - `TIMEOUT`: no answer within `timeoutMs`. Recoverable.
 * - `BAD_RESPONSE`: an answer that is not the service's JSON (a proxy's HTML page, a cut body).
 *   Recoverable when its HTTP status says the server was busy (429, 502, 503, 504).
 * - `ABORTED`: the caller's `signal` fired. Not recoverable.
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'BAD_RESPONSE' | 'ABORTED';

export interface JsonmendErrorInit {
  code: string;
  message: string;
  recoverable: boolean;
  /** The answer's X-Request-ID (quote it when reporting a problem); null when nothing was answered. */
  requestId?: string | null;
  /** The HTTP status, null when nothing was answered. */
  status?: number | null;
  /** The service's error object as it was sent (severity, suggestion, field). */
  error?: RepairError | null;
  /** How long the service asked the caller to wait (Retry-After / X-RateLimit-Reset), in ms. */
  retryAfterMs?: number | null;
  /** Attempts made, retries included. */
  attempts?: number;
  cause?: unknown;
}

export class JsonmendError extends Error {
  readonly code: string;
  readonly recoverable: boolean;
  readonly requestId: string | null;
  readonly status: number | null;
  readonly error: RepairError | null;
  readonly retryAfterMs: number | null;
  readonly attempts: number;

  constructor(init: JsonmendErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'JsonmendError';
    this.code = init.code;
    this.recoverable = init.recoverable;
    this.requestId = init.requestId ?? null;
    this.status = init.status ?? null;
    this.error = init.error ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.attempts = init.attempts ?? 1;
  }
}

/** The failures of a repair that ran: answered as a result (`success: false`), never thrown. */
export const REPAIR_FAILURES: ReadonlySet<string> = new Set(['UNRECOVERABLE_SYNTAX_ERROR', 'SCHEMA_VALIDATION_FAILED']);

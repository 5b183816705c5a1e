// Turns an engine result or a server-side error into the status and body of the request's contract.
import { makeError } from './error-codes.js';
import { failureResponse } from '../../engine/response.js';
import type { RepairError, RepairResponse } from '../../engine/types.js';
import { compactFailure, toCompact } from './compact-mapping.js';
import type { Contract } from './contract.js';
import { envelopeJson } from './envelope-json.js';
import {
  serializeCompactFailure, serializeCompactFailureDemo, serializeCompactRateLimit, serializeCompactRateLimitDemo, serializeCompactSuccess,
  serializeCompactSuccessDemo,
} from './serializers.js';

export interface Rendered {
  status: number;
  body: string;
  /** The error code on the wire (after compact renaming), or null on success. */
  errorCode: string | null;
}

/** `demoMessage` is null outside the demo endpoint; on it, answers add `demo: true` and the message. */
export function renderRepair(response: RepairResponse, contract: Contract, demoMessage: string | null): Rendered {
  if (contract === 'envelope') {
    const errorCode = response.metadata.errors[0]?.code ?? null;
    return { status: 200, body: envelopeJson(response, demoMessage), errorCode };
  }
  const compact = toCompact(response);
  if (compact.valid) {
    const body = demoMessage === null
      ? serializeCompactSuccess(compact)
      : serializeCompactSuccessDemo({ ...compact, demo: true, message: demoMessage });
    return { status: 200, body, errorCode: null };
  }
  const body = demoMessage === null
    ? serializeCompactFailure(compact)
    : serializeCompactFailureDemo({ ...compact, demo: true, message: demoMessage });
  return { status: 200, body, errorCode: compact.errors[0]?.code ?? null };
}

/**
 * Valid JSON takes the engine's fast path (JSON.parse) whatever its depth, and JSON.stringify
 * overflows its stack 4,000–6,000 levels down; checking the depth up front would cost the fast path
 * a scan of the whole input (it would fall from 0.9x to about 0.6x JSON.parse). So the depth is
 * caught where it bites, and answered as the engine answers repaired input past its own limit.
 */
const TOO_DEEP_TO_RETURN = makeError('UNRECOVERABLE_SYNTAX_ERROR',
  'The JSON nests too deeply to be returned: a value thousands of levels deep cannot be serialized.',
  { suggestion: 'Flatten the structure; repaired input is refused past 1,000 levels, valid JSON past what JSON.stringify can write.' });

/** renderRepair, except that a value too deep to serialize becomes UNRECOVERABLE_SYNTAX_ERROR. */
export function renderRepairSafely(response: RepairResponse, contract: Contract, demoMessage: string | null): Rendered {
  try {
    return renderRepair(response, contract, demoMessage);
  } catch (error) {
    if (!(error instanceof RangeError) || !error.message.includes('call stack')) throw error;
    return renderError(TOO_DEEP_TO_RETURN, contract, demoMessage);
  }
}

/**
 * One error in the contract's failure shape: HTTP 200 for both contracts (spec "Errors"), except the
 * compact rate limit (429 `{ error, retryAfter }`, on the demo also `demo` and `message`) and routing
 * errors (404/405, via `status`).
 */
export function renderError(
  error: RepairError,
  contract: Contract,
  demoMessage: string | null,
  retryAfterSeconds = 60,
  status = 200,
): Rendered {
  if (contract === 'compact' && error.code === 'RATE_LIMIT_EXCEEDED') {
    const body = demoMessage === null
      ? serializeCompactRateLimit({ error: error.message, retryAfter: retryAfterSeconds })
      : serializeCompactRateLimitDemo({ error: error.message, retryAfter: retryAfterSeconds, demo: true, message: demoMessage });
    return { status: 429, body, errorCode: error.code };
  }
  if (contract === 'envelope') {
    const rendered = renderRepair(failureResponse([error]), 'envelope', demoMessage);
    rendered.status = status;
    return rendered;
  }
  const failure = compactFailure([error]);
  const body = demoMessage === null ? serializeCompactFailure(failure) : serializeCompactFailureDemo({ ...failure, demo: true, message: demoMessage });
  return { status, body, errorCode: failure.errors[0]!.code };
}

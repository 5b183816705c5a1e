// How the bench reads an answer. Envelope answers are HTTP 200 whatever happened, so the body, not
// the status, says whether a request was repaired, refused for a full queue, or failed otherwise.
import type { Outcome } from '../lib/load.js';

const OK_ENVELOPE = '{"success":true';
const OK_COMPACT = '{"valid":true';
const OK_PUSH = '{"state":';

function refusedOrFailed(body: string): Outcome {
  return body.includes('"SERVICE_UNAVAILABLE"') ? 'unavailable' : 'failed';
}

export function classifyEnvelope(_status: number, body: string): Outcome {
  return body.startsWith(OK_ENVELOPE) ? 'ok' : refusedOrFailed(body);
}

export function classifyCompact(_status: number, body: string): Outcome {
  return body.startsWith(OK_COMPACT) ? 'ok' : refusedOrFailed(body);
}

export function classifyPush(_status: number, body: string): Outcome {
  return body.startsWith(OK_PUSH) ? 'ok' : refusedOrFailed(body);
}

export function classifyEcho(status: number): Outcome {
  return status === 200 ? 'ok' : 'failed';
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

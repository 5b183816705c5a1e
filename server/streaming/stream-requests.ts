// Request bodies of the three stream endpoints in both contracts, validated with validators
// compiled once at load from the schemas in contracts/request-schemas.ts. As on /v1/repair, unknown
// fields are refused.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Mode, PreviewMode } from '../../engine/types.js';
import { isPlainObject, detectContract, type Contract } from '../contracts/contract.js';
import type { ContractSetting } from '../config/load-config.js';
import { DEFAULT_MODE, REQUEST_SCHEMAS } from '../contracts/request-schemas.js';
import { describe, requestAjv } from '../contracts/request-validation.js';

export type StreamEndpoint = 'start' | 'push' | 'finalize';

export interface StartRequest {
  /** The client's id (compact), as sent; '' for the envelope, whose id the server issues. */
  sessionId: string;
  schema: unknown;
  mode: Mode;
  echoBuffer: boolean;
  preview: PreviewMode;
}

export interface PushRequest { sessionId: string; chunk: string }
export interface FinalizeRequest { sessionId: string }

const compile = (schema: object): ValidateFunction => requestAjv.compile(schema);
const validators: Record<StreamEndpoint, Record<Contract, ValidateFunction>> = {
  start: { envelope: compile(REQUEST_SCHEMAS.EnvelopeStreamStartRequest), compact: compile(REQUEST_SCHEMAS.CompactStreamStartRequest) },
  push: { envelope: compile(REQUEST_SCHEMAS.EnvelopeStreamPushRequest), compact: compile(REQUEST_SCHEMAS.CompactStreamPushRequest) },
  finalize: { envelope: compile(REQUEST_SCHEMAS.EnvelopeStreamFinalizeRequest), compact: compile(REQUEST_SCHEMAS.CompactStreamFinalizeRequest) },
};

/**
 * The contract of a stream request. `start` bodies may name neither contract's fields (the
 * envelope start may be `{}`), and only the compact one carries `sessionId`: such a body is envelope.
 */
export function streamContract(endpoint: StreamEndpoint, body: unknown, setting: ContractSetting): Contract | null {
  const contract = detectContract(body, setting);
  if (contract === null && endpoint === 'start' && isPlainObject(body)) return 'envelope';
  return contract;
}

function explain(error: ErrorObject): string {
  if (error.keyword === 'pattern') return `"${error.instancePath.slice(1)}" must be a UUID (for example 123e4567-e89b-42d3-a456-426614174000).`;
  if (error.keyword === 'maxLength' || error.keyword === 'minLength') return `"${error.instancePath.slice(1)}" is not a session id.`;
  if (error.instancePath === '/echo_buffer') return '"echo_buffer" must be a boolean.';
  if (error.instancePath === '/preview') return '"preview" must be "complete", "progressive" or "patch".';
  return describe(error);
}

function check(endpoint: StreamEndpoint, body: unknown, contract: Contract): Record<string, unknown> | string {
  const validate = validators[endpoint][contract];
  return validate(body) ? (body as Record<string, unknown>) : explain(validate.errors![0]!);
}

/** A validated request, or the message of an INVALID_REQUEST. */
export function readStart(body: unknown, contract: Contract): StartRequest | string {
  const fields = check('start', body, contract);
  if (typeof fields === 'string') return fields;
  const preview = (fields.preview as PreviewMode | undefined) ?? 'complete';
  return {
    sessionId: contract === 'compact' ? (fields.sessionId as string) : '',
    schema: fields.schema ?? undefined,
    mode: (fields.mode as Mode | undefined) ?? DEFAULT_MODE[contract],
    // The compact push answer carries no buffer, so its streams never build one; patch previews
    // leave it out unless asked (their answers cost their chunk).
    echoBuffer: contract === 'envelope' && (fields.echo_buffer === undefined ? preview !== 'patch' : fields.echo_buffer === true),
    preview,
  };
}

export function readPush(body: unknown, contract: Contract): PushRequest | string {
  const fields = check('push', body, contract);
  if (typeof fields === 'string') return fields;
  return contract === 'envelope'
    ? { sessionId: fields.session_id as string, chunk: fields.chunk as string }
    : { sessionId: (fields.sessionId as string), chunk: fields.content as string };
}

export function readFinalize(body: unknown, contract: Contract): FinalizeRequest | string {
  const fields = check('finalize', body, contract);
  if (typeof fields === 'string') return fields;
  return { sessionId: contract === 'envelope' ? (fields.session_id as string) : (fields.sessionId as string) };
}

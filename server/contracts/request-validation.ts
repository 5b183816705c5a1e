// Request bodies of the batch endpoints, validated with validators compiled once at load from the
// schemas in request-schemas.ts.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Mode } from '../../engine/types.js';
import type { Contract } from './contract.js';
import { DEFAULT_MODE, REQUEST_SCHEMAS } from './request-schemas.js';

export interface BatchRequest {
  input: string;
  schema: unknown;
  mode: Mode;
}

/** One ajv instance for every request validator (the streaming ones too). */
export const requestAjv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });

const validators: Record<Contract, ValidateFunction> = {
  envelope: requestAjv.compile(REQUEST_SCHEMAS.EnvelopeRepairRequest),
  compact: requestAjv.compile(REQUEST_SCHEMAS.CompactRepairRequest),
};

const INPUT_FIELD: Record<Contract, 'raw_output' | 'content'> = { envelope: 'raw_output', compact: 'content' };

export function describe(error: ErrorObject): string {
  const field = error.instancePath === '' ? 'the request body' : `"${error.instancePath.slice(1)}"`;
  switch (error.keyword) {
    case 'required':
      return `Missing required field "${String(error.params.missingProperty)}".`;
    case 'additionalProperties':
      return `Unknown field "${String(error.params.additionalProperty)}".`;
    case 'enum':
      return `${field} must be one of ${(error.params.allowedValues as string[]).join(', ')}.`;
    case 'type':
      return error.instancePath === '/schema'
        ? '"schema" must be a JSON Schema (an object, a boolean or null).'
        : `${field} must be ${error.params.type === 'object' ? 'a JSON object' : `a ${String(error.params.type)}`}.`;
    default:
      return `${field} is invalid.`;
  }
}

/** A validated request, or the message of an INVALID_REQUEST. */
export function readBatchRequest(body: unknown, contract: Contract): BatchRequest | string {
  const validate = validators[contract];
  if (!validate(body)) return describe(validate.errors![0]!);
  const fields = body as Record<string, unknown>;
  return {
    input: fields[INPUT_FIELD[contract]] as string,
    schema: fields.schema ?? undefined,
    mode: (fields.mode as Mode | undefined) ?? DEFAULT_MODE[contract],
  };
}

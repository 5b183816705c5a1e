// Request bodies of the batch endpoints, validated with validators compiled once at load.
// Unknown fields are refused: a misspelt `shcema` silently ignored would repair without the schema.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Mode } from '../../engine/types.js';
import type { Contract } from './contract.js';

export interface BatchRequest {
  input: string;
  schema: unknown;
  mode: Mode;
}

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });

function batchSchema(inputField: string): object {
  return {
    type: 'object',
    required: [inputField],
    additionalProperties: false,
    properties: {
      [inputField]: { type: 'string' },
      // JSON Schema allows booleans as schemas; null is what the demo page sends for "none".
      schema: { type: ['object', 'boolean', 'null'] },
      mode: { type: 'string', enum: ['strict', 'lenient'] },
    },
  };
}

const validators: Record<Contract, ValidateFunction> = {
  envelope: ajv.compile(batchSchema('raw_output')),
  compact: ajv.compile(batchSchema('content')),
};

const INPUT_FIELD: Record<Contract, 'raw_output' | 'content'> = { envelope: 'raw_output', compact: 'content' };
/** The spec's defaults: envelope `strict`, compact `lenient`. */
const DEFAULT_MODE: Record<Contract, Mode> = { envelope: 'strict', compact: 'lenient' };

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

// Response serializers, compiled once per shape with fast-json-stringify. Properties not declared
// here are dropped, which is also how the engine-internal `compact_code` stays off the wire.
import build from 'fast-json-stringify';

const ANY = {};
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer' } as const;

const repairError = {
  type: 'object',
  required: ['code', 'message', 'severity', 'recoverable'],
  properties: { code: str, message: str, field: str, severity: str, recoverable: bool, suggestion: str },
} as const;

const warning = {
  type: 'object',
  required: ['code', 'message', 'severity'],
  properties: { code: str, message: str, field: str, severity: str, suggestion: str, position: int },
} as const;

const repairDetail = {
  type: 'object',
  required: ['type', 'confidence', 'safe'],
  properties: {
    type: str, confidence: str, safe: bool, position: int, count: int, field: str,
    original_value: ANY, repaired_value: ANY,
  },
} as const;

const list = (items: object) => ({ type: 'array', items }) as const;

const metadata = {
  type: 'object',
  required: ['confidence', 'was_repaired', 'output_valid_json', 'syntax_repairs', 'schema_repairs', 'repairs_applied', 'warnings', 'errors'],
  properties: {
    confidence: str,
    was_repaired: bool,
    output_valid_json: bool,
    syntax_repairs: list(repairDetail),
    schema_repairs: list(repairDetail),
    repairs_applied: list(repairDetail),
    warnings: list(warning),
    errors: list(repairError),
  },
} as const;

const demoFields = { demo: bool, message: str };

function envelopeSchema(demo: boolean): object {
  return {
    type: 'object',
    required: demo ? ['success', 'repaired', 'metadata', 'demo', 'message'] : ['success', 'repaired', 'metadata'],
    properties: { success: bool, repaired: ANY, metadata, ...(demo ? demoFields : {}) },
  };
}

// The compact contract lists warnings with code, message and severity; `field` is kept when
// present because "which field was removed" is the point of EXTRA_FIELD_REMOVED.
const compactWarning = {
  type: 'object',
  required: ['code', 'message', 'severity'],
  properties: { code: str, message: str, severity: str, field: str },
} as const;

function compactSuccessSchema(demo: boolean): object {
  const required = ['valid', 'repaired', 'confidence', 'warnings', 'repairs'];
  return {
    type: 'object',
    required: demo ? [...required, 'demo', 'message'] : required,
    properties: {
      valid: bool, repaired: str, confidence: str, warnings: list(compactWarning), repairs: list(str),
      ...(demo ? demoFields : {}),
    },
  };
}

function compactFailureSchema(demo: boolean): object {
  const required = ['valid', 'confidence', 'errors'];
  return {
    type: 'object',
    required: demo ? [...required, 'demo', 'message'] : required,
    properties: { valid: bool, confidence: str, errors: list(repairError), ...(demo ? demoFields : {}) },
  };
}

type Serializer = (doc: unknown) => string;
const compile = (schema: object): Serializer => build(schema) as Serializer;

/** The whole envelope in one fjs pass: the shape envelope-json.ts assembles faster (and is tested against). */
export const serializeEnvelope = compile(envelopeSchema(false));
export const serializeEnvelopeDemo = compile(envelopeSchema(true));
/** The envelope's parts on their own, for envelope-json.ts. */
export const serializeRepairDetail = compile(repairDetail);
export const serializeWarnings = compile(list(warning));
export const serializeErrors = compile(list(repairError));
export const serializeCompactSuccess = compile(compactSuccessSchema(false));
export const serializeCompactSuccessDemo = compile(compactSuccessSchema(true));
export const serializeCompactFailure = compile(compactFailureSchema(false));
export const serializeCompactFailureDemo = compile(compactFailureSchema(true));
/** Compact rate limiting: HTTP 429 `{ error, retryAfter }` (spec "Errors"). */
export const serializeCompactRateLimit = compile({
  type: 'object', required: ['error', 'retryAfter'], properties: { error: str, retryAfter: int },
});
/** The demo's: every demo answer, its 429 included, carries `demo: true` and the demo's message. */
export const serializeCompactRateLimitDemo = compile({
  type: 'object', required: ['error', 'retryAfter', 'demo', 'message'], properties: { error: str, retryAfter: int, demo: { type: 'boolean' }, message: str },
});

// The component schemas of the OpenAPI document (openapi.ts). Error and warning codes are taken
// from the registry (engine/error-codes.ts), so the document lists exactly the codes the server can
// send. Repair types are open-ended (new kinds may be added) and are therefore not an enum.
import { ERROR_CODES, WARNING_CODES } from '../../engine/error-codes.js';
import { REPAIR_KINDS } from '../../engine/repair-kinds.js';

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const MODE = { type: 'string', enum: ['strict', 'lenient'] } as const;
const SCHEMA = {
  description: 'A JSON Schema (draft-07 or 2020-12, chosen by `$schema`), or null for none.',
  type: ['object', 'boolean', 'null'],
} as const;
const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const closed = (required: string[], properties: Record<string, unknown>, description?: string): object => ({
  type: 'object', ...(description === undefined ? {} : { description }), required, additionalProperties: false, properties,
});
const demoFields = {
  demo: { const: true },
  message: { type: 'string', description: 'An invitation to sign up for a free key.' },
};

export const SCHEMAS: Record<string, object> = {
  // Requests
  EnvelopeRepairRequest: closed(['raw_output'], {
    raw_output: { type: 'string', description: 'The text to repair: at most MAX_PAYLOAD_BYTES (5 MiB) of UTF-8 once decoded, however it is escaped in the body (the body may be up to 6 × MAX_PAYLOAD_BYTES + 1 MiB).' },
    schema: SCHEMA,
    mode: { ...MODE, default: 'strict' },
  }, 'Envelope contract. Unknown fields are refused with INVALID_REQUEST.'),
  CompactRepairRequest: closed(['content'], {
    content: { type: 'string', description: 'The text to repair: at most MAX_PAYLOAD_BYTES (5 MiB) of UTF-8 once decoded, however it is escaped in the body (the body may be up to 6 × MAX_PAYLOAD_BYTES + 1 MiB).' },
    schema: SCHEMA,
    mode: { ...MODE, default: 'lenient' },
  }, 'Compact contract. Unknown fields are refused with INVALID_REQUEST.'),
  EnvelopeStreamStartRequest: closed([], {
    schema: SCHEMA,
    mode: { ...MODE, default: 'strict' },
    echo_buffer: { type: 'boolean', default: true, description: 'false leaves `buffered` out of push answers (saves copying the buffer).' },
  }),
  CompactStreamStartRequest: closed(['sessionId'], {
    sessionId: { type: 'string', pattern: UUID, description: 'A UUID the client generates.' },
    schema: SCHEMA,
    mode: { ...MODE, default: 'lenient' },
  }),
  EnvelopeStreamPushRequest: closed(['session_id', 'chunk'], {
    session_id: { type: 'string', minLength: 1, maxLength: 128 },
    chunk: { type: 'string', description: 'At most MAX_PAYLOAD_BYTES (5 MiB) of UTF-8 once decoded, however it is escaped in the body; the session buffer is limited to 5 MiB too.' },
  }),
  CompactStreamPushRequest: closed(['sessionId', 'content'], {
    sessionId: { type: 'string', pattern: UUID },
    content: { type: 'string', description: 'At most MAX_PAYLOAD_BYTES (5 MiB) of UTF-8 once decoded, however it is escaped in the body.' },
  }),
  EnvelopeStreamFinalizeRequest: closed(['session_id'], { session_id: { type: 'string', minLength: 1, maxLength: 128 } }),
  CompactStreamFinalizeRequest: closed(['sessionId'], { sessionId: { type: 'string', pattern: UUID } }),

  // Parts of the envelope answer
  Confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
  RepairDetail: closed(['type', 'confidence', 'safe'], {
    type: { type: 'string', description: 'A repair kind (docs/repairs.md), for example removed_trailing_comma.', examples: Object.keys(REPAIR_KINDS).slice(0, 5) },
    confidence: ref('Confidence'),
    safe: bool,
    position: { ...int, description: 'Syntax repairs: UTF-16 offset in the input of the first occurrence.' },
    count: { ...int, description: 'Syntax repairs: how many times this repair was made.' },
    field: { type: 'string', description: 'Schema repairs: JSON Pointer of the value changed.' },
    original_value: { description: 'Schema repairs: the value before.' },
    repaired_value: { description: 'Schema repairs: the value after.' },
  }),
  Warning: closed(['code', 'message', 'severity'], {
    code: { type: 'string', enum: Object.keys(WARNING_CODES) },
    message: str,
    field: str,
    severity: { type: 'string', enum: ['low', 'medium', 'high'] },
    suggestion: str,
    position: int,
  }),
  RepairError: closed(['code', 'message', 'severity', 'recoverable'], {
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    message: str,
    field: str,
    severity: { type: 'string', enum: ['critical', 'high', 'medium'] },
    recoverable: bool,
    suggestion: str,
  }),
  RepairMetadata: closed(
    ['confidence', 'was_repaired', 'output_valid_json', 'syntax_repairs', 'schema_repairs', 'repairs_applied', 'warnings', 'errors'],
    {
      confidence: { type: 'string', enum: ['high', 'medium', 'low', 'n/a'] },
      was_repaired: bool,
      output_valid_json: bool,
      syntax_repairs: { type: 'array', items: ref('RepairDetail') },
      schema_repairs: { type: 'array', items: ref('RepairDetail') },
      repairs_applied: { type: 'array', items: ref('RepairDetail'), description: 'syntax_repairs followed by schema_repairs.' },
      warnings: { type: 'array', items: ref('Warning') },
      errors: { type: 'array', items: ref('RepairError'), description: 'Non-empty exactly when success is false.' },
    },
  ),

  // Envelope answers (always HTTP 200)
  EnvelopeRepairResponse: closed(['success', 'repaired', 'metadata'], {
    success: bool,
    repaired: { description: 'The repaired JSON value; null on failure.' },
    metadata: ref('RepairMetadata'),
  }),
  EnvelopeDemoResponse: closed(['success', 'repaired', 'metadata', 'demo', 'message'], {
    success: bool, repaired: {}, metadata: ref('RepairMetadata'), ...demoFields,
  }),
  EnvelopeStreamStartResponse: closed(['session_id', 'expires_at'], {
    session_id: { type: 'string', description: 'Server-issued, at least 128 random bits.' },
    expires_at: { ...int, description: 'Unix time in milliseconds; each push moves it SESSION_TTL_MS ahead.' },
  }),
  StreamState: closed(
    ['structurally_complete', 'json_parseable', 'safe_to_emit', 'partial', 'incomplete_token', 'brace_depth', 'in_string', 'expected_next'],
    {
      structurally_complete: bool,
      json_parseable: bool,
      safe_to_emit: bool,
      partial: { description: 'The value parsed so far, or null.' },
      buffered: { type: 'string', description: 'Everything pushed so far; absent when the session was started with echo_buffer: false.' },
      incomplete_token: str,
      brace_depth: int,
      in_string: bool,
      expected_next: { type: 'array', items: str },
    },
  ),
  EnvelopeStreamPushResponse: closed(['state'], { state: ref('StreamState') }),

  // Compact answers
  CompactRepairSuccess: closed(['valid', 'repaired', 'confidence', 'warnings', 'repairs'], {
    valid: { const: true },
    repaired: { type: 'string', description: 'The repaired JSON text (no whitespace).' },
    confidence: ref('Confidence'),
    warnings: { type: 'array', items: ref('CompactWarning') },
    repairs: { type: 'array', items: str, description: 'Repair names, each once; quoted_unquoted_keys is called quoted_keys.' },
  }),
  CompactWarning: closed(['code', 'message', 'severity'], {
    code: { type: 'string', enum: Object.keys(WARNING_CODES) },
    message: str,
    severity: { type: 'string', enum: ['low', 'medium', 'high'] },
    field: str,
  }),
  CompactFailure: closed(['valid', 'confidence', 'errors'], {
    valid: { const: false },
    confidence: { const: 'n/a' },
    errors: { type: 'array', items: ref('RepairError'), minItems: 1 },
  }),
  CompactDemoSuccess: closed(['valid', 'repaired', 'confidence', 'warnings', 'repairs', 'demo', 'message'], {
    valid: { const: true }, repaired: str, confidence: ref('Confidence'),
    warnings: { type: 'array', items: ref('CompactWarning') }, repairs: { type: 'array', items: str }, ...demoFields,
  }),
  CompactDemoFailure: closed(['valid', 'confidence', 'errors', 'demo', 'message'], {
    valid: { const: false }, confidence: { const: 'n/a' }, errors: { type: 'array', items: ref('RepairError'), minItems: 1 }, ...demoFields,
  }),
  CompactRateLimit: closed(['error', 'retryAfter'], {
    error: str,
    retryAfter: { type: 'integer', minimum: 1, description: 'Seconds until a request would be allowed.' },
  }),
  CompactStreamStartResponse: closed(['sessionId', 'expiresAt'], { sessionId: str, expiresAt: { type: 'string', format: 'date-time' } }),
  CompactStreamPushResponse: closed(['sessionId', 'valid', 'partial', 'safeToEmit', 'bufferedBytes', 'totalReceived'], {
    sessionId: str, valid: bool, partial: {}, safeToEmit: bool, bufferedBytes: int, totalReceived: int,
  }),

  // Accounts and operations
  UsageReport: closed(['tier', 'month', 'count', 'quota', 'remaining', 'resets_at'], {
    tier: { type: 'string', enum: ['free', 'pro', 'team', 'scale', 'unlimited'] },
    month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$' },
    count: int,
    quota: { type: ['integer', 'null'], description: 'null for the unlimited tier.' },
    remaining: { type: ['integer', 'null'] },
    resets_at: { type: 'string', format: 'date-time' },
    overage: { ...int, description: 'team only: repairs past the quota.' },
    overage_cost_usd: { type: 'number', minimum: 0, description: 'team only: overage at $0.30 per 1,000.' },
  }),
  Health: {
    type: 'object',
    description: 'With METRICS_TOKEN set on the server, the public sees `status` alone and the other fields go only to `Authorization: Bearer <METRICS_TOKEN>`.',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['ok', 'draining'] },
      version: str,
      uws: { type: 'string', enum: ['native', 'fallback'] },
      contract: { type: 'string', enum: ['auto', 'envelope', 'compact'] },
      uptimeSeconds: int,
      inflightRequests: int,
      pool: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  },
};

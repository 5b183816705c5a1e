// The component schemas of the OpenAPI document (openapi.ts). Error and warning codes are taken
// from the registry (server/contracts/error-codes.ts), so the document lists exactly the codes the server can
// send. Repair types are open-ended (new kinds may be added) and are therefore not an enum.
// The request schemas are the validators' own (server/contracts/request-schemas.ts).
import { ERROR_CODES, WARNING_CODES } from '../contracts/error-codes.js';
import { REPAIR_KINDS } from '../../engine/repair-kinds.js';
import { TIER_NAMES } from '../config/tiers.js';
import { closedObject as closed, REQUEST_SCHEMAS } from '../contracts/request-schemas.js';
import { UWS_PACKAGES } from '../http/load-uws.js';

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const demoFields = {
  demo: { const: true },
  message: { type: 'string', description: 'An invitation to sign up for a free key.' },
};

export const SCHEMAS: Record<string, object> = {
  ...REQUEST_SCHEMAS,

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
    ['structurally_complete', 'json_parseable', 'safe_to_emit', 'incomplete_token', 'brace_depth', 'in_string', 'expected_next'],
    {
      structurally_complete: bool,
      json_parseable: { ...bool, description: 'The JSON the reply holds (without a fence and the prose around it) is whole and parses as written.' },
      safe_to_emit: bool,
      partial: { description: 'Preview "complete": the reply\'s JSON once parseable, else null. "progressive": the value so far. Absent with "patch".' },
      partial_patch: { type: 'array', items: ref('PatchOperation'), description: 'Preview "patch" only: turns the previous state\'s preview into this one\'s.' },
      settled: { type: 'array', items: str, description: 'Previews "progressive" and "patch": JSON Pointers of the values that became final in this push.' },
      buffered: { type: 'string', description: 'Everything pushed so far; absent when the session was started with echo_buffer: false.' },
      incomplete_token: str,
      brace_depth: int,
      in_string: bool,
      expected_next: { type: 'array', items: str },
    },
  ),
  EnvelopeStreamPushResponse: closed(['state'], { state: ref('StreamState') }),
  PatchOperation: closed(['op', 'value'], {
    op: { type: 'string', enum: ['add', 'replace', 'append'], description: 'RFC 6902 add and replace; append adds `value` (text) to the end of the string at `path`.' },
    path: { type: 'string', description: 'A JSON Pointer; "" is the whole preview. Always present on add and replace; left out of an append that continues the string the session\'s previous operation named (possibly in an earlier state).' },
    value: {},
  }),

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
  CompactDemoRateLimit: closed(['error', 'retryAfter', 'demo', 'message'], {
    error: str,
    retryAfter: { type: 'integer', minimum: 1, description: 'Seconds until a request would be allowed.' },
    ...demoFields,
  }),
  CompactStreamStartResponse: closed(['sessionId', 'expiresAt'], { sessionId: str, expiresAt: { type: 'string', format: 'date-time' } }),
  CompactStreamPushResponse: closed(['sessionId', 'valid', 'safeToEmit', 'bufferedBytes', 'totalReceived'], {
    sessionId: str, valid: bool, partial: { description: 'Absent with preview "patch".' },
    partialPatch: { type: 'array', items: ref('PatchOperation'), description: 'Preview "patch" only.' },
    settled: { type: 'array', items: str, description: 'Previews "progressive" and "patch".' },
    safeToEmit: bool, bufferedBytes: int, totalReceived: int,
  }),

  // Accounts and operations
  // The gateway (/v1/chat/completions): its own errors, and the report it adds to an answer.
  OpenAIError: closed(['error'], {
    error: closed(['message', 'type', 'param', 'code'], {
      message: str,
      type: { type: 'string', description: 'invalid_request_error, authentication_error, rate_limit_error, server_error, upstream_error or jsonmend_low_confidence.' },
      param: { type: ['string', 'null'] },
      code: { type: ['string', 'null'], description: "The registry code in lower case (e.g. `invalid_api_key`, `upstream_unreachable`)." },
    }),
    jsonmend: ref('JsonmendReport'),
  }),
  JsonmendPart: closed(['confidence', 'repaired', 'success', 'syntax_repairs', 'schema_repairs', 'warnings', 'errors'], {
    confidence: ref('Confidence'),
    repaired: bool,
    success: bool,
    syntax_repairs: { type: 'array', items: ref('RepairDetail') },
    schema_repairs: { type: 'array', items: ref('RepairDetail') },
    warnings: { type: 'array', items: ref('Warning') },
    errors: { type: 'array', items: ref('RepairError') },
    index: int,
    id: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
  }, 'A healed part: the content of a choice, or one tool call (with its index, id and name).'),
  JsonmendReport: closed(['confidence', 'min_confidence', 'meets_min_confidence', 'choices'], {
    confidence: ref('Confidence'),
    min_confidence: { type: ['string', 'null'], enum: ['medium', 'high', null] },
    meets_min_confidence: bool,
    choices: {
      type: 'array',
      items: closed(['index'], { index: int, content: ref('JsonmendPart'), tool_calls: { type: 'array', items: ref('JsonmendPart') } }),
    },
  }),
  UsageReport: closed(['tier', 'month', 'count', 'quota', 'remaining', 'resets_at'], {
    tier: { type: 'string', enum: [...TIER_NAMES] },
    month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$' },
    count: { ...int, description: "Repairs this month by the key's account: every key of a console user, or the operator key alone." },
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
      status: { type: 'string', enum: ['ok', 'degraded', 'draining'], description: 'degraded: a shared store (REDIS_URL, DATABASE_URL) does not answer; still serving on local fallbacks.' },
      stores: {
        type: 'object',
        description: 'With REDIS_URL or DATABASE_URL: each shared store, up or down.',
        properties: { redis: { type: 'string', enum: ['up', 'down'] }, postgres: { type: 'string', enum: ['up', 'down'] } },
      },
      degraded: { type: 'array', items: { type: 'string', enum: ['redis', 'postgres'] }, description: 'The stores that are down (only while status is degraded).' },
      version: str,
      uws: { type: 'string', enum: ['native', 'fallback'] },
      uwsPackage: { type: 'string', enum: [...UWS_PACKAGES], description: 'The package uWS was loaded from: the official uWebSockets.js when installed and native, else the unofficial build.' },
      contract: { type: 'string', enum: ['auto', 'envelope', 'compact'] },
      uptimeSeconds: int,
      inflightRequests: int,
      pool: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  },
};

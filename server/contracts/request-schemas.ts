// Every request body the service accepts, written once as JSON Schema. The batch and streaming
// validators compile these objects with ajv, and /openapi.json publishes the same objects, so the
// document cannot drift from what the server accepts. Unknown fields are refused: a misspelt
// `shcema` silently ignored would repair without the schema.
import type { Contract } from './contract.js';

/** A closed object: the listed members only. */
export function closedObject(required: string[], properties: Record<string, unknown>, description?: string): object {
  return { type: 'object', ...(description === undefined ? {} : { description }), required, additionalProperties: false, properties };
}

/** Any RFC 9562 UUID in its 8-4-4-4-12 text form (any version; hex digits in either case). */
const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const COMPACT_ID = { type: 'string', pattern: UUID, description: 'A UUID the client generates.' };
/** Issued ids are 22 characters; anything much longer cannot be one and is not worth a lookup. */
const ENVELOPE_ID = { type: 'string', minLength: 1, maxLength: 128, description: 'The session_id the start answer gave.' };
const MODE = { type: 'string', enum: ['strict', 'lenient'] };
/** How push answers show the value so far (docs/streaming.md "Preview modes"). */
const PREVIEW = {
  type: 'string',
  enum: ['complete', 'progressive', 'patch'],
  default: 'complete',
  description: '`complete`: the reply\'s JSON once whole; `progressive`: the value so far, growing; `patch`: its changes as JSON Patch operations (plus `append`).',
};
/** The spec's defaults: envelope `strict`, compact `lenient`. */
export const DEFAULT_MODE: Record<Contract, 'strict' | 'lenient'> = { envelope: 'strict', compact: 'lenient' };
// JSON Schema allows booleans as schemas; null is what the demo page sends for "none".
const SCHEMA = {
  description: 'A JSON Schema (draft-07 or 2020-12, chosen by `$schema`), or null for none.',
  type: ['object', 'boolean', 'null'],
};
const DECODED = 'MAX_PAYLOAD_BYTES (default 5 MiB) of UTF-8 once decoded, however it is escaped in the body';
const INPUT = { type: 'string', description: `The text to repair: at most ${DECODED} (the body may be up to 6 × MAX_PAYLOAD_BYTES + 1 MiB).` };
const UNKNOWN_REFUSED = 'Unknown fields are refused with INVALID_REQUEST.';

export const REQUEST_SCHEMAS = {
  EnvelopeRepairRequest: closedObject(['raw_output'], {
    raw_output: INPUT,
    schema: SCHEMA,
    mode: { ...MODE, default: DEFAULT_MODE.envelope },
  }, `Envelope contract. ${UNKNOWN_REFUSED}`),
  CompactRepairRequest: closedObject(['content'], {
    content: INPUT,
    schema: SCHEMA,
    mode: { ...MODE, default: DEFAULT_MODE.compact },
  }, `Compact contract. ${UNKNOWN_REFUSED}`),
  EnvelopeStreamStartRequest: closedObject([], {
    schema: SCHEMA,
    mode: { ...MODE, default: DEFAULT_MODE.envelope },
    echo_buffer: { type: 'boolean', description: 'false leaves `buffered` out of push answers (saves copying the buffer). Default true, false with preview "patch".' },
    preview: PREVIEW,
  }),
  CompactStreamStartRequest: closedObject(['sessionId'], {
    sessionId: COMPACT_ID,
    schema: SCHEMA,
    mode: { ...MODE, default: DEFAULT_MODE.compact },
    preview: PREVIEW,
  }),
  EnvelopeStreamPushRequest: closedObject(['session_id', 'chunk'], {
    session_id: ENVELOPE_ID,
    chunk: { type: 'string', description: `At most ${DECODED}; the session buffer is limited to MAX_PAYLOAD_BYTES too.` },
  }),
  CompactStreamPushRequest: closedObject(['sessionId', 'content'], { sessionId: COMPACT_ID, content: { type: 'string', description: `At most ${DECODED}.` } }),
  EnvelopeStreamFinalizeRequest: closedObject(['session_id'], { session_id: ENVELOPE_ID }),
  CompactStreamFinalizeRequest: closedObject(['sessionId'], { sessionId: COMPACT_ID }),
} as const;

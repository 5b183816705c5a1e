// Answer serializers of the stream endpoints, compiled once per shape with fast-json-stringify.
// Finalize answers reuse the batch serializers (server/contracts/render.ts).
import build from 'fast-json-stringify';

const ANY = {};
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer' } as const;

type Serializer = (doc: unknown) => string;
const compile = (schema: object): Serializer => build(schema) as Serializer;

// `buffered` is absent from a session started with `echo_buffer: false`, `partial` from one with
// patch previews, and `partial_patch` and `settled` from one with the default complete previews
// (docs/streaming.md "Preview modes").
const STATE_FIELDS = [
  'structurally_complete', 'json_parseable', 'safe_to_emit', 'incomplete_token',
  'brace_depth', 'in_string', 'expected_next',
];
const PATCH = {
  type: 'array',
  items: { type: 'object', required: ['op', 'value'], properties: { op: str, path: str, value: ANY } },
} as const;
const SETTLED = { type: 'array', items: str } as const;

/** Envelope push: `{ state }`, the spec's streaming state object. */
export const serializeEnvelopePush = compile({
  type: 'object',
  required: ['state'],
  properties: {
    state: {
      type: 'object',
      required: STATE_FIELDS,
      properties: {
        structurally_complete: bool, json_parseable: bool, safe_to_emit: bool, partial: ANY, partial_patch: PATCH,
        settled: SETTLED, buffered: str, incomplete_token: str, brace_depth: int, in_string: bool,
        expected_next: { type: 'array', items: str },
      },
    },
  },
});

/** Compact push: the spec's "Streaming push response (compact contract)". */
export const serializeCompactPush = compile({
  type: 'object',
  required: ['sessionId', 'valid', 'safeToEmit', 'bufferedBytes', 'totalReceived'],
  properties: {
    sessionId: str, valid: bool, partial: ANY, partialPatch: PATCH, settled: SETTLED, safeToEmit: bool, bufferedBytes: int, totalReceived: int,
  },
});

/** Envelope start: the server-issued id and the expiry in Unix milliseconds. */
export const serializeEnvelopeStart = compile({
  type: 'object', required: ['session_id', 'expires_at'], properties: { session_id: str, expires_at: int },
});

/** Compact start: the client's id and the expiry as an ISO 8601 time. */
export const serializeCompactStart = compile({
  type: 'object', required: ['sessionId', 'expiresAt'], properties: { sessionId: str, expiresAt: str },
});

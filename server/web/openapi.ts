// The OpenAPI 3.1 document of the public API, both contracts, served at GET /openapi.json. It is
// built once at start from the schemas in openapi-schemas.ts; test/web/openapi.test.ts validates
// real answers of a running server against it.
import { TIERS } from '../config/tiers.js';
import { VERSION } from '../config/version.js';
import { SCHEMAS } from './openapi-schemas.js';

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object): object => ({ 'application/json': { schema } });
const oneOf = (...names: string[]): object => ({ oneOf: names.map(ref) });
const header = (description: string, type = 'string'): object => ({ description, schema: { type } });

const REQUEST_ID = { 'X-Request-ID': { $ref: '#/components/headers/X-Request-ID' } };
const RATE_HEADERS = {
  ...REQUEST_ID,
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const ROUTING_ERRORS = {
  '404': { $ref: '#/components/responses/NotFound' },
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
};
const compact429 = (schema: string): object => ({
  description: 'Compact contract only: rate limit exceeded (the envelope answers 200 with RATE_LIMIT_EXCEEDED).',
  headers: RATE_HEADERS,
  content: json(ref(schema)),
});

interface KeyedPost {
  summary: string;
  description: string;
  request: [string, string];
  ok: string[];
  keyed: boolean;
  /** The body may be left out (stream start: every field is optional). */
  bodyOptional?: boolean;
}

function post(op: KeyedPost, operationId: string, tag: string): object {
  return {
    post: {
      operationId,
      tags: [tag],
      summary: op.summary,
      description: op.description,
      security: op.keyed ? [{ bearerAuth: [] }] : [],
      requestBody: { required: op.bodyOptional !== true, content: json(oneOf(...op.request)) },
      responses: {
        '200': {
          description: 'The answer, errors included, in the contract the request spoke (envelope: check `success`; compact: check `valid`).',
          headers: RATE_HEADERS,
          content: json(oneOf(...op.ok)),
        },
        '429': compact429(op.keyed ? 'CompactRateLimit' : 'CompactDemoRateLimit'),
        ...ROUTING_ERRORS,
      },
    },
  };
}

const CONTRACTS_TEXT = 'With CONTRACT=auto (the default) the body\'s field names choose the contract: `raw_output`, `session_id` or `chunk` mean envelope; `content` or `sessionId` mean compact.';

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  info: {
    title: 'jsonmend',
    version: VERSION,
    summary: 'Repairs the broken JSON that language models produce and reports every change.',
    description: `Two contracts are served on the same paths: the envelope contract (the primary one) and the compact contract. ${CONTRACTS_TEXT} Every answer carries X-Request-ID. Keys are created in the web console at /console.`,
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: '/', description: 'This server' }],
  tags: [
    { name: 'repair', description: 'Batch repair' },
    { name: 'streaming', description: 'Streaming sessions: start, push chunks, finalize' },
    { name: 'demo', description: 'Keyless demo, limited per client IP' },
    { name: 'account', description: 'Usage of the calling key' },
    { name: 'operations', description: 'Health, metrics and this document' },
  ],
  paths: {
    '/v1/repair': post({
      summary: 'Repair one text',
      description: `Batch repair. ${CONTRACTS_TEXT} Envelope answers are always HTTP 200 with errors in metadata.errors; compact errors are HTTP 200 with valid: false, except rate limiting (429).`,
      request: ['EnvelopeRepairRequest', 'CompactRepairRequest'],
      ok: ['EnvelopeRepairResponse', 'CompactRepairSuccess', 'CompactFailure'],
      keyed: true,
    }, 'repair', 'repair'),
    '/v1/demo/repair': post({
      summary: 'Repair one text without a key (demo)',
      description: 'The same bodies and answers as /v1/repair plus `demo: true` and a `message`, limited to DEMO_LIMIT_PER_HOUR requests per client IP per hour (X-RateLimit-* headers). A key, if sent, is ignored.',
      request: ['EnvelopeRepairRequest', 'CompactRepairRequest'],
      ok: ['EnvelopeDemoResponse', 'CompactDemoSuccess', 'CompactDemoFailure'],
      keyed: false,
    }, 'demoRepair', 'demo'),
    '/v1/repair/stream/start': post({
      summary: 'Start a streaming session',
      description: 'Envelope: the server issues the session id (an empty object, or no body at all, is a valid request). Compact: the client sends its own UUID. Sessions expire after SESSION_TTL_MS without activity; expired, finished and unknown sessions all answer SESSION_NOT_FOUND. Open sessions are bounded per account by tier (free 5, pro 25, team 100, scale 250; at most a quarter of MAX_SESSIONS; all keys of a console user together): past that, RATE_LIMIT_EXCEEDED (recoverable; compact HTTP 429) with Retry-After. A full server (MAX_SESSIONS) or a used-up buffer budget (STREAM_BUFFER_BUDGET_BYTES, the bytes all sessions may buffer together) answers SERVICE_UNAVAILABLE (recoverable).',
      request: ['EnvelopeStreamStartRequest', 'CompactStreamStartRequest'],
      ok: ['EnvelopeStreamStartResponse', 'CompactStreamStartResponse', 'EnvelopeRepairResponse', 'CompactFailure'],
      keyed: true,
      bodyOptional: true,
    }, 'streamStart', 'streaming'),
    '/v1/repair/stream/push': post({
      summary: 'Push a chunk',
      description: 'Appends a chunk and answers the streaming state. A buffer over MAX_PAYLOAD_BYTES terminates the session (BUFFER_SIZE_EXCEEDED). A chunk that would take the bytes all sessions buffer together past the server\'s budget (STREAM_BUFFER_BUDGET_BYTES) answers SERVICE_UNAVAILABLE (recoverable): nothing is added and the session carries on. Failures come in the batch failure shape of the contract.',
      request: ['EnvelopeStreamPushRequest', 'CompactStreamPushRequest'],
      ok: ['EnvelopeStreamPushResponse', 'CompactStreamPushResponse', 'EnvelopeRepairResponse', 'CompactFailure'],
      keyed: true,
    }, 'streamPush', 'streaming'),
    '/v1/repair/stream/finalize': post({
      summary: 'Finish a session and get the repair',
      description: 'Answers like a batch repair of everything pushed; the session id is gone afterwards.',
      request: ['EnvelopeStreamFinalizeRequest', 'CompactStreamFinalizeRequest'],
      ok: ['EnvelopeRepairResponse', 'CompactRepairSuccess', 'CompactFailure'],
      keyed: true,
    }, 'streamFinalize', 'streaming'),
    '/v1/chat/completions': {
      post: {
        operationId: 'chatCompletions',
        tags: ['gateway'],
        summary: 'OpenAI-compatible chat completions, with the JSON healed (the gateway)',
        description: 'The OpenAI Chat Completions wire format, forwarded to the operator\'s UPSTREAM_URL with the body as it came. Each tool call\'s `arguments` is healed against its tool\'s `parameters`, and `message.content` when `response_format` is `json_schema` or `json_object`; everything else passes untouched. The answer carries `X-Jsonmend-Confidence` and a `jsonmend` report (docs/gateway.md). With `stream: true` the answer is `text/event-stream` in OpenAI\'s chunk format, the report on the last chunk before `data: [DONE]`. Errors of the gateway itself are in the OpenAI error shape; the upstream\'s errors pass on with their status, body and Retry-After.',
        security: [{ bearerAuth: [] }],
        parameters: [
          { name: 'X-Jsonmend-Min-Confidence', in: 'header', required: false, schema: { type: 'string', enum: ['medium', 'high'] },
            description: 'Non-streaming: an answer whose healed parts are below it is a 422 `jsonmend_low_confidence`. Streaming: the last chunk\'s report says whether it was met.' },
          { name: 'X-Upstream-Authorization', in: 'header', required: false, schema: { type: 'string' },
            description: 'Only when the operator set UPSTREAM_KEY_FROM_CALLER=1: sent upstream as `Authorization` instead of UPSTREAM_API_KEY (e.g. `Bearer sk-...`).' },
        ],
        requestBody: { required: true, content: json({ type: 'object', description: 'An OpenAI Chat Completions request; every field is forwarded as it came.' }) },
        responses: {
          '200': {
            description: 'The upstream\'s completion with its healed parts and a `jsonmend` member, or (stream: true) its chunks as server-sent events.',
            headers: { ...RATE_HEADERS, 'X-Jsonmend-Confidence': header('Non-streaming: the worst confidence over the healed parts (`high` when there were none or they were valid as written).') },
            content: {
              ...json({ type: 'object', required: ['choices', 'jsonmend'], properties: { choices: { type: 'array' }, jsonmend: ref('JsonmendReport') } }),
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          '400': { description: 'The body is not a JSON object.', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '401': { description: 'Missing or invalid key (`invalid_api_key`).', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '413': { description: 'The body is over the body limit.', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '422': { description: 'Below X-Jsonmend-Min-Confidence: `jsonmend_low_confidence`, with the report.', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '429': { description: 'The key\'s rate limit (`rate_limit_exceeded`, with Retry-After), or the upstream\'s own 429 passed on.', headers: RATE_HEADERS, content: json(ref('OpenAIError')) },
          '502': { description: 'The upstream could not be reached (`upstream_unreachable`).', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '503': { description: 'No UPSTREAM_URL is set (`upstream_not_configured`).', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          '504': { description: 'The upstream did not answer within UPSTREAM_TIMEOUT_MS (`upstream_timeout`).', headers: REQUEST_ID, content: json(ref('OpenAIError')) },
          default: { description: 'Any other status is the upstream\'s own error, passed on with its body.', headers: REQUEST_ID },
          ...ROUTING_ERRORS,
        },
      },
    },
    '/v1/usage': {
      get: {
        operationId: 'usage',
        tags: ['account'],
        summary: "This month's repairs for the calling key's account",
        description: `Months are UTC calendar months. Usage, quota and rate belong to the key's account: all keys of a console user share them (rotating a key resets nothing); an operator key is its own account. Past the quota, free, pro and scale are served at a tenth of their rate (free: ${TIERS.free.degradedPerMinute} a minute) with the QUOTA_EXCEEDED warning. Asking does not count against the rate limit. A bad key gets INVALID_API_KEY in the envelope failure shape (CONTRACT=compact: the compact one)`,

        security: [{ bearerAuth: [] }],
        responses: {
          '200': { description: 'The usage report, or an INVALID_API_KEY failure.', headers: REQUEST_ID, content: json(oneOf('UsageReport', 'EnvelopeRepairResponse', 'CompactFailure')) },
          ...ROUTING_ERRORS,
        },
      },
    },
    '/health': {
      get: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness and pool state',
        description: 'Status, version, uWS backend, contract setting, uptime, requests in flight and pool state (503 `draining` during shutdown). When the server has METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>` gets the details; anyone else gets `{"status": "ok"}`.',
        security: [{}, { metricsToken: [] }],
        responses: {
          '200': { description: 'Serving (status ok, or degraded while a shared store is down).', headers: REQUEST_ID, content: json(ref('Health')) },
          '503': { description: 'Draining before shutdown.', headers: REQUEST_ID, content: json(ref('Health')) },
        },
      },
      head: {
        operationId: 'healthHead',
        tags: ['operations'],
        summary: 'GET /health without the body (every GET endpoint answers HEAD)',
        security: [],
        responses: {
          '200': { description: 'Serving; Content-Length is that of the GET body.', headers: REQUEST_ID },
          '503': { description: 'Draining before shutdown.', headers: REQUEST_ID },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics',
        description: 'Open to anyone when METRICS_TOKEN is unset; with it set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 otherwise). A production deployment should set it.',
        security: [{ metricsToken: [] }],
        responses: {
          '200': { description: 'Prometheus text format 0.0.4.', headers: REQUEST_ID, content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': {
            description: 'METRICS_TOKEN is set and the request does not carry it: INVALID_API_KEY in the configured contract\'s failure shape.',
            headers: { ...REQUEST_ID, 'WWW-Authenticate': header('`Bearer realm="jsonmend metrics"`.') },
            content: json(oneOf('EnvelopeRepairResponse', 'CompactFailure')),
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['operations'],
        summary: 'This document',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1.', headers: REQUEST_ID, content: json({ type: 'object' }) } },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (sk_live_…) from the console or `npm run key -- create`.' },
      metricsToken: { type: 'http', scheme: 'bearer', description: 'The operator token set in the METRICS_TOKEN environment variable.' },
    },
    headers: {
      'X-Request-ID': header('The request id (yours if you sent a safe one); quote it when reporting a problem.'),
      'X-RateLimit-Limit': header('Requests allowed per window (per minute for keys, per hour for the demo).', 'integer'),
      'X-RateLimit-Remaining': header('Requests still allowed now.', 'integer'),
      'X-RateLimit-Reset': header('Unix time (seconds) when the full limit is available again.', 'integer'),
    },
    responses: {
      NotFound: {
        description: 'No such endpoint (NOT_FOUND), in the configured contract\'s failure shape (envelope with CONTRACT=auto).',
        headers: REQUEST_ID,
        content: json(oneOf('EnvelopeRepairResponse', 'CompactFailure')),
      },
      MethodNotAllowed: {
        description: 'Wrong method (METHOD_NOT_ALLOWED); the Allow header lists the right ones.',
        headers: { ...REQUEST_ID, Allow: header('Methods this path accepts.') },
        content: json(oneOf('EnvelopeRepairResponse', 'CompactFailure')),
      },
    },
    schemas: SCHEMAS,
  },
} as const;

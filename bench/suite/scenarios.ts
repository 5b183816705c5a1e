// The scenarios of `npm run bench`: what is sent, to which server, at which concurrency, and the
// target each must meet. The echo rows are the ceiling: a bare uWS server that reads the same body
// and sends it back, so the gap to it is our own work (plus what the load generator spends on our
// larger answers).
import { MALFORMED_1KB, MALFORMED_1KB_WITH_SCHEMA, REPLY_SCHEMA, VALID_1KB, malformedDocument, type Input } from './bodies.js';
import { formatBytes } from '../lib/format.js';
import { bearer, classifyCompact, classifyEcho, classifyEnvelope } from './answers.js';
import type { RequestSpec } from '../lib/load.js';
import { streamSessionRequests, STREAM_PUSHES } from './stream-session.js';

export type Target =
  | { kind: 'p99'; maxMs: number }
  | { kind: 'echo-fraction'; min: number }
  | { kind: 'input-mbps'; min: number };

export type Check = 'envelope' | 'compact' | 'demo-envelope' | 'stream' | 'echo';

export interface Scenario {
  /** Stable key, used to compare runs. */
  id: string;
  label: string;
  server: 'echo' | 'jsonmend';
  connections: number;
  pipelining: number;
  /**
   * Echo rows this row is compared with: the first is run again just before this row (same body,
   * same connections) as its ceiling; all of them serve if that run is missing.
   */
  ceiling: readonly string[];
  targets: readonly Target[];
  /** How the bench checks one answer before timing anything. */
  check: Check;
  input: Input;
  /** The requests one connection sends in turn, given the run's API key. */
  requests(key: string): RequestSpec[];
  note?: string;
}

export const DEMO_LIMIT_PER_HOUR = 1_000_000;

export function envelopeRequest(path: string, input: Input, headers: Record<string, string>, schema?: object): RequestSpec {
  const body = JSON.stringify(schema === undefined ? { raw_output: input.text } : { raw_output: input.text, schema });
  return { method: 'POST', path, headers, body, classify: classifyEnvelope, inputBytes: input.bytes };
}

function echoRequest(input: Input): RequestSpec {
  return { method: 'POST', path: '/echo', body: JSON.stringify({ raw_output: input.text }), classify: classifyEcho, inputBytes: input.bytes };
}

const SMALL = 50; // the connection count the 1 KB targets are stated at
const SMALL_TARGETS: readonly Target[] = [{ kind: 'p99', maxMs: 5 }, { kind: 'echo-fraction', min: 0.6 }];
const ECHO_SMALL = ['echo-1kb', 'echo-1kb-end'];

/** The label with the exact size of the text to repair: "1 MB" is a class, 924 KB the input. */
function sized(label: string, input: Input): string {
  return `${label} [${formatBytes(input.bytes)}]`;
}

export function scenarios(): Scenario[] {
  const kb100 = malformedDocument(100_000);
  const mb1 = malformedDocument(1_000_000);
  const echo = (id: string, label: string, input: Input, connections: number): Scenario => ({
    id, label: sized(label, input), server: 'echo', connections, pipelining: 1, ceiling: [], targets: [], check: 'echo', input,
    requests: () => [echoRequest(input)],
  });
  const repair = (id: string, label: string, input: Input, connections: number, ceiling: readonly string[], targets: readonly Target[], schema?: object): Scenario => ({
    id, label: sized(label, input), server: 'jsonmend', connections, pipelining: 1, ceiling, targets, check: 'envelope', input,
    requests: (key) => [envelopeRequest('/v1/repair', input, bearer(key), schema)],
  });
  return [
    echo('echo-1kb', 'uWS echo, 1 KB body (ceiling)', MALFORMED_1KB, SMALL),
    echo('echo-100kb', 'uWS echo, 100 KB body (ceiling)', kb100, 16),
    echo('echo-1mb', 'uWS echo, 1 MB body (ceiling)', mb1, 4),
    repair('valid-1kb', 'valid 1 KB', VALID_1KB, SMALL, ECHO_SMALL, SMALL_TARGETS),
    repair('malformed-1kb', 'malformed 1 KB LLM reply', MALFORMED_1KB, SMALL, ECHO_SMALL, SMALL_TARGETS),
    {
      ...repair('schema-1kb', 'malformed 1 KB + schema', MALFORMED_1KB_WITH_SCHEMA, SMALL, ECHO_SMALL, SMALL_TARGETS, REPLY_SCHEMA),
      note: 'the first request with the schema goes to the pool; once the HTTP thread has it compiled, the rest run inline (operations.md)',
    },
    repair('malformed-100kb', 'malformed 100 KB', kb100, 16, ['echo-100kb'], []),
    repair('malformed-1mb', 'malformed 1 MB', mb1, 4, ['echo-1mb'], [{ kind: 'input-mbps', min: 100 }]),
    {
      id: 'demo-1kb', label: sized(`demo endpoint 1 KB (DEMO_LIMIT_PER_HOUR=${DEMO_LIMIT_PER_HOUR})`, MALFORMED_1KB), server: 'jsonmend',
      connections: SMALL, pipelining: 1, ceiling: ECHO_SMALL, targets: SMALL_TARGETS, check: 'demo-envelope', input: MALFORMED_1KB,
      requests: () => [envelopeRequest('/v1/demo/repair', MALFORMED_1KB, {})],
      note: 'per-IP limit raised so the row measures the repair path, not the limiter',
    },
    {
      id: 'compact-1kb', label: sized('compact contract 1 KB', MALFORMED_1KB), server: 'jsonmend', connections: SMALL, pipelining: 1,
      ceiling: ECHO_SMALL, targets: SMALL_TARGETS, check: 'compact', input: MALFORMED_1KB,
      requests: (key) => [{
        method: 'POST', path: '/v1/repair', headers: bearer(key), body: JSON.stringify({ content: MALFORMED_1KB.text }),
        classify: classifyCompact, inputBytes: MALFORMED_1KB.bytes,
      }],
    },
    {
      id: 'stream-100', label: sized(`stream session: 1 KB reply in ${STREAM_PUSHES} pushes`, MALFORMED_1KB), server: 'jsonmend', connections: SMALL,
      pipelining: 1, ceiling: ECHO_SMALL, targets: [], check: 'stream', input: MALFORMED_1KB,
      requests: (key) => streamSessionRequests(key, MALFORMED_1KB),
      note: `req/s counts start + ${STREAM_PUSHES} pushes + finalize; each connection runs one session after another`,
    },
    echo('echo-1kb-end', 'uWS echo, 1 KB body (again, at the end)', MALFORMED_1KB, SMALL),
  ];
}

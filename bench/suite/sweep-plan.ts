// What `npm run bench -- --sweep` measures: each capacity setting varied on its own, with the
// workload that setting matters for. Every point is a fresh server with that environment.
import { formatBytes } from '../lib/format.js';
import { bearer } from './answers.js';
import { MALFORMED_1KB, malformedDocument, type Input } from './bodies.js';
import type { RequestSpec } from '../lib/load.js';
import { envelopeRequest } from './scenarios.js';
import { streamSessionRequests } from './stream-session.js';

export interface Workload {
  label: string;
  connections: number;
  requests(key: string): RequestSpec[];
  /** Needs the streaming endpoints (probed first; a 404 makes the point unavailable). */
  stream?: boolean;
  /** Pause between warm-up and measurement. */
  settleMs?: number;
  /** Names of the bodies of a mixed workload, in order (their latencies are charted apart). */
  parts?: string[];
}

export interface SweepPoint {
  group: string;
  /** The setting's value, as the chart's x axis shows it. */
  x: string;
  /** Which line of the chart the point belongs to. */
  series: string;
  env: Record<string, string>;
  workload: Workload;
}

export interface SweepGroup {
  id: string;
  title: string;
  xLabel: string;
  /** One sentence for the chart: what was sent and what was fixed. */
  subtitle: string;
  points: SweepPoint[];
  /** Draw a chart (the rest are tables only). */
  chart: boolean;
}

function repairOf(input: Input, connections: number, label: string): Workload {
  return { label, connections, requests: (key) => [envelopeRequest('/v1/repair', input, bearer(key))] };
}

export function sweepPlan(): SweepGroup[] {
  const kb1 = MALFORMED_1KB;
  const kb16 = malformedDocument(16_000);
  const kb48 = malformedDocument(48_000);
  const kb100 = malformedDocument(100_000);
  const mb1 = malformedDocument(1_000_000);
  const small = repairOf(kb1, 50, `${formatBytes(kb1.bytes)}, 50 conn.`);
  const large = repairOf(kb100, 16, `${formatBytes(kb100.bytes)}, 16 conn.`);
  const overload = repairOf(kb100, 64, `${formatBytes(kb100.bytes)}, 64 conn.`);
  const parts = [kb1, kb16, kb48].map((input) => formatBytes(input.bytes));
  const mixed: Workload = {
    label: `${parts.join(' / ')} in turn, 32 conn.`,
    connections: 32,
    parts,
    requests: (key) => [kb1, kb16, kb48].map((input) => envelopeRequest('/v1/repair', input, bearer(key))),
  };
  // The warm-up's connections leave their sessions open when it stops; with SESSION_TTL_MS=1000
  // they expire during the pause instead of holding MAX_SESSIONS slots through the measurement.
  const stream: Workload = {
    label: 'stream sessions (100 pushes), 50 conn.', connections: 50, stream: true, settleMs: 2_500,
    requests: (key) => streamSessionRequests(key, kb1),
  };
  const point = (group: string, x: string, series: string, env: Record<string, string>, workload: Workload): SweepPoint => ({ group, x, series, env, workload });
  const sizes = [malformedDocument(1_000), malformedDocument(10_000), kb100, mb1].map((input): [string, Input] => [formatBytes(input.bytes), input]);
  return [
    {
      id: 'workers', title: 'WORKERS (repair pool threads)', xLabel: 'WORKERS', chart: true,
      subtitle: 'malformed bodies; 1 KB repaired inline, 100 KB in the pool; other settings default',
      points: ['1', '2', '4'].flatMap((w) => [point('workers', w, small.label, { WORKERS: w }, small), point('workers', w, large.label, { WORKERS: w }, large)]),
    },
    {
      id: 'queue-max', title: 'QUEUE_MAX under overload', xLabel: 'QUEUE_MAX', chart: true,
      subtitle: '100 KB bodies, 64 conn., WORKERS=1, INLINE_MAX_BYTES=1024 (all to the pool)',
      points: ['1', '4', '16', '64'].map((q) => point('queue-max', q, overload.label, { QUEUE_MAX: q, WORKERS: '1', INLINE_MAX_BYTES: '1024' }, overload)),
    },
    {
      id: 'inline-max-bytes', title: 'INLINE_MAX_BYTES, mixed sizes', xLabel: 'INLINE_MAX_BYTES', chart: true,
      subtitle: `malformed ${parts.join(', ')} bodies in turn, 32 conn., WORKERS=2`,
      points: ['0', '2048', '8192', '65536'].map((b) => point('inline-max-bytes', b, mixed.label, { INLINE_MAX_BYTES: b, WORKERS: '2' }, mixed)),
    },
    {
      id: 'max-sessions', title: 'MAX_SESSIONS, streaming', xLabel: 'MAX_SESSIONS', chart: true,
      subtitle: 'each connection runs sessions of 100 pushes of a 1 KB reply, 50 conn.; a refused start is retried at once; SESSION_TTL_MS=1000',
      points: ['10', '100', '1000'].map((m) => point('max-sessions', m, stream.label, { MAX_SESSIONS: m, SESSION_TTL_MS: '1000' }, stream)),
    },
    {
      id: 'body-size', title: 'Body size', xLabel: 'malformed input size', chart: true,
      subtitle: '16 conn., default settings (bodies over 8 KB go to the pool of 2)',
      points: sizes.map(([x, input]) => point('body-size', x, '16 conn.', {}, repairOf(input, 16, `${x}, 16 conn.`))),
    },
    {
      id: 'log-level', title: 'LOG_LEVEL (one line per request at info)', xLabel: 'LOG_LEVEL', chart: false,
      subtitle: '1 KB malformed, 50 conn.',
      points: ['info', 'warn'].map((level) => point('log-level', level, small.label, { LOG_LEVEL: level }, small)),
    },
    {
      id: 'body-limit', title: 'MAX_PAYLOAD_BYTES (the body limit) refusing a 1 MB body', xLabel: 'MAX_PAYLOAD_BYTES', chart: false,
      subtitle: '1 MB malformed, 4 conn.',
      points: ['5242880', '524288'].map((limit) => point('body-limit', limit, '1 MB, 4 conn.', { MAX_PAYLOAD_BYTES: limit }, repairOf(mb1, 4, '1 MB, 4 conn.'))),
    },
  ];
}

// `npm run bench:stream:http`: streaming sessions over HTTP against the real server on 127.0.0.1.
// Each session is start, 100 pushes of one document (~1 KB each), finalize, on one keep-alive
// connection; 1 connection measures latency, 8 measure throughput. Envelope with `buffered`
// echoed (the spec's shape, so each answer carries the whole buffer), envelope with
// `echo_buffer: false`, envelope with patch previews (`preview: "patch"`; target: server CPU per push
// within 1.5x of `echo_buffer: false`), compact, and for reference each chunk as its own batch repair.
// Bounded: a fixed number of sessions per run.
import { JSONMEND_MAIN, startServerProcess, type ServerProcess } from '../../support/server-process.js';
import { makeDocument } from './document.js';
import { KeepAliveClient } from './keep-alive-client.js';

const PUSHES = 100;
const KEY = 'bench-stream-key';
const PATH = '/v1/repair/stream/';

/** `batch`: the same chunks sent to /v1/repair one by one, for reference (no session). */
type Variant = 'echo' | 'no-echo' | 'patch' | 'compact' | 'batch';

interface RunResult {
  variant: Variant;
  connections: number;
  pushes: number;
  chunksPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  serverCpuUsPerPush: number;
  answerBytesPerPush: number;
}

const doc = makeDocument(PUSHES * 1024);
const size = Math.ceil(doc.length / PUSHES);
const chunks = Array.from({ length: PUSHES }, (_, i) => JSON.stringify(doc.slice(i * size, (i + 1) * size)));

const START_BODY: Record<Exclude<Variant, 'batch'>, (id: string) => string> = {
  echo: () => '{}',
  'no-echo': () => '{"echo_buffer":false}',
  patch: () => '{"preview":"patch"}',
  compact: (id) => `{"sessionId":"${id}"}`,
};

let uuidCounter = 0;
function nextUuid(): string {
  return `00000000-0000-4000-8000-${(++uuidCounter).toString(16).padStart(12, '0')}`;
}

/** One whole session; push latencies (ms) are appended to `latencies`. Returns answer bytes of the pushes. */
async function runSession(client: KeepAliveClient, variant: Variant, latencies: number[]): Promise<number> {
  if (variant === 'batch') return runBatch(client, latencies);
  const uuid = nextUuid();
  const started = JSON.parse(await client.post(PATH + 'start', START_BODY[variant](uuid)));
  const id: string = variant === 'compact' ? started.sessionId : started.session_id;
  if (typeof id !== 'string') throw new Error(`start failed: ${JSON.stringify(started)}`);
  const prefix = variant === 'compact' ? `{"sessionId":"${id}","content":` : `{"session_id":"${id}","chunk":`;
  let bytes = 0;
  for (const chunk of chunks) {
    const t0 = performance.now();
    const answer = await client.post(PATH + 'push', prefix + chunk + '}');
    latencies.push(performance.now() - t0);
    bytes += answer.length;
    if (!answer.startsWith(variant === 'compact' ? '{"sessionId"' : '{"state"')) throw new Error(`push failed: ${answer.slice(0, 200)}`);
  }
  const final = JSON.parse(await client.post(PATH + 'finalize', variant === 'compact' ? `{"sessionId":"${id}"}` : `{"session_id":"${id}"}`));
  if (final.success !== true && final.valid !== true) throw new Error(`finalize failed: ${JSON.stringify(final).slice(0, 200)}`);
  return bytes;
}

async function runBatch(client: KeepAliveClient, latencies: number[]): Promise<number> {
  let bytes = 0;
  for (const chunk of chunks) {
    const t0 = performance.now();
    const answer = await client.post('/v1/repair', `{"raw_output":${chunk}}`);
    latencies.push(performance.now() - t0);
    bytes += answer.length;
    if (!answer.startsWith('{"success"')) throw new Error(`repair failed: ${answer.slice(0, 200)}`);
  }
  return bytes;
}

function at(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(server: ServerProcess, variant: Variant, connections: number, sessionsEach: number): Promise<RunResult> {
  const clients = await Promise.all(Array.from({ length: connections }, () => KeepAliveClient.open(server.url, `Bearer ${KEY}`)));
  await Promise.all(clients.map((c) => runSession(c, variant, []))); // warm-up
  const latencies: number[] = [];
  let bytes = 0;
  const cpuBefore = server.cpuSeconds();
  const t0 = performance.now();
  await Promise.all(clients.map(async (client) => {
    for (let s = 0; s < sessionsEach; s++) {
      const answered = await runSession(client, variant, latencies);
      bytes += answered;
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = server.cpuSeconds() - cpuBefore;
  for (const client of clients) client.close();
  latencies.sort((a, b) => a - b);
  return {
    variant,
    connections,
    pushes: latencies.length,
    chunksPerSecond: latencies.length / seconds,
    p50Ms: at(latencies, 0.5),
    p99Ms: at(latencies, 0.99),
    maxMs: latencies[latencies.length - 1]!,
    serverCpuUsPerPush: (cpu * 1e6) / latencies.length,
    answerBytesPerPush: bytes / latencies.length,
  };
}

const server = await startServerProcess(JSONMEND_MAIN, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2', LOG_LEVEL: 'warn' });
const results: RunResult[] = [];
const VARIANTS = ['no-echo', 'patch', 'echo', 'compact', 'batch'] as const;
try {
  // Warm every path (JIT on the HTTP thread and in both streaming workers) before measuring any.
  for (const variant of VARIANTS) await run(server, variant, 2, 3);
  for (const variant of VARIANTS) {
    results.push(await run(server, variant, 1, 20));
    results.push(await run(server, variant, 8, 5));
  }
} finally {
  await server.stop();
}

console.log(`document: ${doc.length} characters in ${PUSHES} pushes of ${size}; server WORKERS=2 (streaming threads 2)`);
console.log(['variant', 'conns', 'pushes', 'chunks/s', 'p50 ms', 'p99 ms', 'max ms', 'server CPU/push', 'answer bytes/push'].map((h) => h.padEnd(11)).join(' '));
for (const r of results) {
  console.log([
    r.variant, String(r.connections), String(r.pushes), r.chunksPerSecond.toFixed(0), r.p50Ms.toFixed(3), r.p99Ms.toFixed(3),
    r.maxMs.toFixed(2), `${r.serverCpuUsPerPush.toFixed(0)} µs`, r.answerBytesPerPush.toFixed(0),
  ].map((c) => c.padEnd(11)).join(' '));
}
for (const connections of [1, 8]) {
  const cpu = (variant: Variant): number => results.find((r) => r.variant === variant && r.connections === connections)!.serverCpuUsPerPush;
  const ratio = cpu('patch') / cpu('no-echo');
  console.log(`patch previews, ${connections} conn: server CPU/push ${ratio.toFixed(2)}x echo_buffer:false ${ratio <= 1.5 ? 'pass (<= 1.5x)' : 'FAIL (> 1.5x)'}`);
}
console.log(JSON.stringify({ bench: 'stream-http', documentChars: doc.length, pushes: PUSHES, results }));

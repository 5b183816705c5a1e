// Where should a repair run: inline on the uWS thread, or in the pool? For LLM-style malformed
// input of growing size this measures, in one process:
//   inline   - time of runRepairTask on the main thread (the event loop is blocked that long);
//   pool     - round-trip latency through a one-worker RepairPool, and the main thread's own
//              busy time per task (event-loop utilisation), i.e. what the hop costs the loop.
// Inline wins outright while the task is cheaper than the hop; past that, the question is how long
// one request may hold the event loop. Run: `npm run build && node dist/bench/http/inline-threshold.js`.
import { performance } from 'node:perf_hooks';
import { printTable } from '../lib/table.js';
import { RepairPool } from '../../server/batch/repair-pool.js';
import { runRepairTask, type RepairTaskSettings } from '../../server/batch/repair-task.js';
import { LLM_REPLY } from './payload.js';

const SIZES = [256, 1024, 4096, 8192, 16_384, 65_536, 262_144, 1_048_576, 5_000_000];
const settings: RepairTaskSettings = { contract: 'auto', maxPayloadBytes: 5_242_880, demoMessage: '' };

/** A malformed LLM reply of about `bytes`: the payload's records repeated inside one array. */
function bodyOfSize(bytes: number): Uint8Array {
  const record = LLM_REPLY.slice(LLM_REPLY.indexOf('{'), LLM_REPLY.lastIndexOf('"history"')).trimEnd() + '\n}';
  const records: string[] = [];
  let length = 0;
  do {
    records.push(record);
    length += record.length + 2;
  } while (length < bytes - 40);
  const text = bytes < record.length ? record.slice(0, Math.max(2, bytes - 20)) : `[${records.join(',\n')},`;
  return new TextEncoder().encode(JSON.stringify({ raw_output: text }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function inlineMicros(body: Uint8Array): number {
  const request = { endpoint: 'repair' as const, body, warnings: null, schemaGate: null };
  const samples: number[] = [];
  const budgetEnd = performance.now() + 1500;
  for (let i = 0; i < 5 || (performance.now() < budgetEnd && i < 2000); i++) {
    const start = performance.now();
    runRepairTask(request, settings);
    samples.push((performance.now() - start) * 1000);
  }
  return median(samples.slice(Math.floor(samples.length / 5)));
}

async function poolMicros(pool: RepairPool, body: Uint8Array): Promise<{ latency: number; loopBusy: number }> {
  const latencies: number[] = [];
  let busy = 0;
  let tasks = 0;
  const budgetEnd = performance.now() + 1500;
  for (let i = 0; i < 5 || (performance.now() < budgetEnd && i < 2000); i++) {
    const copy = body.slice().buffer;
    const elu = performance.eventLoopUtilization();
    const start = performance.now();
    await pool.submit({ endpoint: 'repair', body: copy, warnings: null });
    latencies.push((performance.now() - start) * 1000);
    if (i >= 5) {
      busy += performance.eventLoopUtilization(elu).active * 1000;
      tasks++;
    }
  }
  return { latency: median(latencies.slice(5)), loopBusy: busy / Math.max(1, tasks) };
}

/** Bytes where inline main-thread time reaches the pool's, interpolated between measured sizes. */
function crossover(points: { bytes: number; inline: number; loopBusy: number }[]): number | null {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const before = a.inline - a.loopBusy;
    const after = b.inline - b.loopBusy;
    if (before <= 0 && after > 0) return Math.round(a.bytes + ((b.bytes - a.bytes) * -before) / (after - before));
  }
  return null;
}

const points: { bytes: number; inline: number; loopBusy: number }[] = [];
const pool = new RepairPool({ workers: 1, queueMax: 4, taskTimeoutMs: 60_000, settings, testHooks: false, onPoolError: () => {} });
const rows: (string | number)[][] = [];
for (const size of SIZES) {
  const body = bodyOfSize(size);
  const inline = inlineMicros(body);
  const viaPool = await poolMicros(pool, body);
  points.push({ bytes: body.byteLength, inline, loopBusy: viaPool.loopBusy });
  rows.push([body.byteLength, inline.toFixed(1), viaPool.latency.toFixed(1), viaPool.loopBusy.toFixed(1), (viaPool.latency - inline).toFixed(1)]);
}
await pool.close();
const at = crossover(points);
process.stdout.write(`main-thread crossover (inline costs the loop more than a pool hop): ${at === null ? 'not found' : `≈ ${at} bytes`}\n`);
printTable(['body bytes', 'inline µs (loop blocked)', 'pool latency µs', 'pool: loop busy µs/task', 'pool latency - inline'], rows);

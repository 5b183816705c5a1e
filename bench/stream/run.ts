// `npm run bench:stream`: one ~1 MB document pushed in 1 KB chunks through createStream, against
// one JSON.parse of the whole document and against re-parsing the buffer on every push (the
// quadratic design most partial-JSON libraries use). Targets from issue 6.
import { createStream } from '../../engine/index.js';
import { makeDocument } from './document.js';

const CHUNK = 1024;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function streamOnce(doc: string, echoBuffer: boolean): { totalMs: number; pushes: number[] } {
  const stream = createStream({ echoBuffer });
  const pushes: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < doc.length; i += CHUNK) {
    const t0 = process.hrtime.bigint();
    stream.push(doc.slice(i, i + CHUNK));
    pushes.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
  const result = stream.finalize();
  if (!result.success) throw new Error('the streamed document did not repair');
  return { totalMs, pushes };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeParse(doc: string, runs: number): number {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    JSON.parse(doc);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

function reparsePerPush(doc: string): number {
  const t0 = process.hrtime.bigint();
  const chunks: string[] = [];
  for (let i = 0; i < doc.length; i += CHUNK) {
    chunks.push(doc.slice(i, i + CHUNK));
    try {
      JSON.parse(chunks.join(''));
    } catch {
      // incomplete: the naive design tries again on the next push
    }
  }
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const doc = makeDocument(1 << 20);
const doc4 = makeDocument(4 << 20);
for (let w = 0; w < 3; w++) streamOnce(doc, false); // warm up
const parseMs = timeParse(doc, 15);
const runs = [0, 1, 2, 3, 4].map(() => streamOnce(doc, false));
const streamMs = median(runs.map((r) => r.totalMs));
const allPushes = runs.flatMap((r) => r.pushes).sort((a, b) => a - b);
const echoMs = median([0, 1, 2].map(() => streamOnce(doc, true).totalMs));
const stream4Ms = median([0, 1, 2].map(() => streamOnce(doc4, false).totalMs));
const reparseMs = reparsePerPush(doc);

const rows = [
  ['document', `${(doc.length / 1e6).toFixed(2)} MB in ${Math.ceil(doc.length / CHUNK)} pushes of 1 KB`, '', ''],
  ['JSON.parse (whole, once)', `${parseMs.toFixed(2)} ms`, '', ''],
  ['createStream, all pushes', `${streamMs.toFixed(2)} ms`, `${(streamMs / parseMs).toFixed(1)}x JSON.parse`, streamMs <= 30 * parseMs ? 'pass (<= 30x)' : 'FAIL (> 30x)'],
  ['push p50 / p99 / max', `${percentile(allPushes, 50).toFixed(3)} / ${percentile(allPushes, 99).toFixed(3)} / ${allPushes[allPushes.length - 1]!.toFixed(3)} ms`, '', percentile(allPushes, 99) < 1 ? 'pass (p99 < 1 ms)' : 'FAIL (p99 >= 1 ms)'],
  ['4x document', `${stream4Ms.toFixed(2)} ms`, `${(stream4Ms / streamMs).toFixed(2)}x the 1x time`, stream4Ms <= 5 * streamMs ? 'pass (<= 5x)' : 'FAIL (> 5x)'],
  ['with buffered echoed each push', `${echoMs.toFixed(2)} ms`, `${(echoMs / streamMs).toFixed(1)}x without`, ''],
  ['re-parse buffer per push', `${reparseMs.toFixed(0)} ms`, `${(reparseMs / streamMs).toFixed(0)}x createStream`, ''],
];
for (const r of rows) console.log(r[0]!.padEnd(32), r[1]!.padEnd(34), r[2]!.padEnd(22), r[3]);
console.log(JSON.stringify({ bench: 'stream', parseMs, streamMs, p99PushMs: percentile(allPushes, 99), stream4Ms, echoMs, reparseMs }));

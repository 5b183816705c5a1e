// `npm run bench:stream`: one ~1 MB document pushed in 1 KB chunks through createStream() with its
// default options (every state carries `buffered`), side by side with one JSON.parse of the whole
// document in the same run; then the same with `echoBuffer: false`, with a caller that reads every
// state's `buffered`, and re-parsing the buffer on every push (the quadratic design most
// partial-JSON libraries use); then one long token of each kind held back until it ends. Targets
// (default options): all pushes within 30x one JSON.parse, push p99 under 1 ms with 1 MB buffered,
// 4x the document within 5x the time (the long tokens too). Then the same document with progressive
// previews (the same three targets) and patch previews (the answers' bytes summed over the session
// within 3x the document).
import { createStream, type StreamOptions } from '../../engine/index.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { makeDocument } from './document.js';

// Each timed run starts from a collected heap, so no run pays for the garbage of the one before.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const CHUNK = 1024;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

interface StreamRun {
  totalMs: number;
  /** Every push's time, in push order. */
  pushes: number[];
}

/** `readBuffered`: the caller reads every state's `buffered` (as the envelope server's answer does). */
function streamOnce(doc: string, options: StreamOptions, readBuffered = false): StreamRun {
  collect();
  const stream = createStream(options);
  const pushes: number[] = [];
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < doc.length; i += CHUNK) {
    const t0 = process.hrtime.bigint();
    const state = stream.push(doc.slice(i, i + CHUNK));
    if (readBuffered) sink += state.buffered!.charCodeAt(state.buffered!.length - 1);
    pushes.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
  const result = stream.finalize();
  if (!result.success || sink < 0) throw new Error('the streamed document did not repair');
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

const DEFAULT: StreamOptions = {};
const ECHO_OFF: StreamOptions = { echoBuffer: false };
const PROGRESSIVE: StreamOptions = { preview: 'progressive' };
const PATCH: StreamOptions = { preview: 'patch' };

/** The bytes of every state's JSON (what a server answers per push) summed over the session. */
function answerBytes(doc: string, options: StreamOptions): number {
  const stream = createStream(options);
  let bytes = 0;
  for (let i = 0; i < doc.length; i += CHUNK) bytes += Buffer.byteLength(JSON.stringify(stream.push(doc.slice(i, i + CHUNK))));
  stream.finalize();
  return bytes;
}

const doc = makeDocument(1 << 20);
const doc4 = makeDocument(4 << 20);
for (let w = 0; w < 3; w++) {
  streamOnce(doc, DEFAULT); // warm up
  streamOnce(doc, ECHO_OFF);
}
streamOnce(doc4, DEFAULT);
const parseMs = timeParse(doc, 15);
// Default and echo-off runs alternate, so both see the same neighbours on a shared machine.
const runs: StreamRun[] = [];
const echoOffRuns: StreamRun[] = [];
for (let r = 0; r < 5; r++) {
  runs.push(streamOnce(doc, DEFAULT));
  echoOffRuns.push(streamOnce(doc, ECHO_OFF));
}
const streamMs = median(runs.map((r) => r.totalMs));
const allPushes = runs.flatMap((r) => r.pushes).sort((a, b) => a - b);
// The pushes made with at least 0.9 MB already buffered: the target is about a push at 1 MB.
const fullFrom = Math.floor((0.9 * doc.length) / CHUNK);
const fullPushes = runs.flatMap((r) => r.pushes.slice(fullFrom)).sort((a, b) => a - b);
const stream4Ms = median([0, 1, 2, 3, 4].map(() => streamOnce(doc4, DEFAULT).totalMs));
const echoOffMs = median(echoOffRuns.map((r) => r.totalMs));
const readEveryMs = streamOnce(doc, DEFAULT, true).totalMs;
// Progressive previews, and patch previews, alternating as above.
const progressiveRuns: StreamRun[] = [];
const patchRuns: StreamRun[] = [];
for (let r = 0; r < 5; r++) {
  progressiveRuns.push(streamOnce(doc, PROGRESSIVE));
  patchRuns.push(streamOnce(doc, PATCH));
}
const progressiveMs = median(progressiveRuns.map((r) => r.totalMs));
const progressiveFull = progressiveRuns.flatMap((r) => r.pushes.slice(fullFrom)).sort((a, b) => a - b);
const progressive4Ms = median([0, 1, 2].map(() => streamOnce(doc4, PROGRESSIVE).totalMs));
const patchMs = median(patchRuns.map((r) => r.totalMs));
const patchBytes = answerBytes(doc, PATCH);
const docBytes = Buffer.byteLength(doc);
const reparseMs = reparsePerPush(doc);

// Long tokens held back until they end: each is one token of the document's size, pushed in 1 KB
// chunks with the default options, at 1 MB and 4 MB (each push must cost its chunk here too).
const longTokens: Array<[string, (bytes: number) => string]> = [
  ['bare key', (bytes) => `{${'k'.repeat(bytes)}: 1}`],
  ['long number', (bytes) => `{"n": ${'1'.repeat(bytes)}}`],
  ['unquoted value', (bytes) => `{"v": ${'word '.repeat(bytes / 5)}x}`],
  ['block comment', (bytes) => `{"a": 1 /* ${'note '.repeat(bytes / 5)}*/}`],
  ['line comment', (bytes) => `{"a": 1 // ${'note '.repeat(bytes / 5)}\n}`],
];
const longRows = longTokens.map(([name, make]) => {
  const one = streamOnce(make(1 << 20), DEFAULT).totalMs;
  const four = streamOnce(make(4 << 20), DEFAULT).totalMs;
  return { name, one, four };
});

const x = (ms: number): string => `${(ms / parseMs).toFixed(1)}x JSON.parse`;
const rows = [
  ['document', `${(doc.length / 1e6).toFixed(2)} MB in ${Math.ceil(doc.length / CHUNK)} pushes of 1 KB`, '', ''],
  ['JSON.parse (whole, once)', `${parseMs.toFixed(2)} ms`, '1.0x JSON.parse', ''],
  ['createStream(), all pushes', `${streamMs.toFixed(2)} ms`, x(streamMs), streamMs <= 30 * parseMs ? 'pass (<= 30x)' : 'FAIL (> 30x)'],
  ['push p50 / p99 / max', `${percentile(allPushes, 50).toFixed(3)} / ${percentile(allPushes, 99).toFixed(3)} / ${allPushes[allPushes.length - 1]!.toFixed(3)} ms`, '', ''],
  ['push p99 at >= 0.9 MB buffered', `${percentile(fullPushes, 99).toFixed(3)} ms`, '', percentile(fullPushes, 99) < 1 ? 'pass (p99 < 1 ms)' : 'FAIL (p99 >= 1 ms)'],
  ['4x document', `${stream4Ms.toFixed(2)} ms`, `${(stream4Ms / streamMs).toFixed(2)}x the 1x time`, stream4Ms <= 5 * streamMs ? 'pass (<= 5x)' : 'FAIL (> 5x)'],
  ['progressive previews, all pushes', `${progressiveMs.toFixed(2)} ms`, x(progressiveMs), progressiveMs <= 30 * parseMs ? 'pass (<= 30x)' : 'FAIL (> 30x)'],
  ['progressive push p99 at >= 0.9 MB', `${percentile(progressiveFull, 99).toFixed(3)} ms`, '', percentile(progressiveFull, 99) < 1 ? 'pass (p99 < 1 ms)' : 'FAIL (p99 >= 1 ms)'],
  ['progressive, 4x document', `${progressive4Ms.toFixed(2)} ms`, `${(progressive4Ms / progressiveMs).toFixed(2)}x the 1x time`, progressive4Ms <= 5 * progressiveMs ? 'pass (<= 5x)' : 'FAIL (> 5x)'],
  ['patch previews, all pushes', `${patchMs.toFixed(2)} ms`, x(patchMs), ''],
  ['patch previews, answer bytes', `${(patchBytes / 1e6).toFixed(2)} MB`, `${(patchBytes / docBytes).toFixed(2)}x the document`, patchBytes <= 3 * docBytes ? 'pass (<= 3x)' : 'FAIL (> 3x)'],
  ['echoBuffer: false, all pushes', `${echoOffMs.toFixed(2)} ms`, x(echoOffMs), `${(echoOffMs / streamMs).toFixed(2)}x the default`],
  ['default, buffered read every push', `${readEveryMs.toFixed(0)} ms`, x(readEveryMs), 'the reader pays each copy'],
  ['re-parse buffer per push', `${reparseMs.toFixed(0)} ms`, x(reparseMs), `${(reparseMs / streamMs).toFixed(0)}x createStream()`],
];
for (const r of longRows) {
  rows.push([`1 MB ${r.name}, all pushes`, `${r.one.toFixed(2)} ms (4 MB: ${r.four.toFixed(2)} ms)`, x(r.one),
    r.four <= 5 * r.one ? `pass (4x in ${(r.four / r.one).toFixed(2)}x)` : `FAIL (4x in ${(r.four / r.one).toFixed(2)}x)`]);
}
for (const r of rows) console.log(r[0]!.padEnd(34), r[1]!.padEnd(34), r[2]!.padEnd(20), r[3]);
console.log(JSON.stringify({
  bench: 'stream', parseMs, streamMs, p99PushMs: percentile(allPushes, 99), p99FullPushMs: percentile(fullPushes, 99),
  stream4Ms, echoOffMs, readEveryMs, reparseMs, progressiveMs, p99ProgressiveFullPushMs: percentile(progressiveFull, 99),
  progressive4Ms, patchMs, patchAnswerBytes: patchBytes, documentBytes: docBytes, longTokens: longRows,
}));

// `node dist/bench/engine/heal.js` (after `npm run build`; run under flock /tmp/jsonmend-bench.lock):
// what the streaming healer costs per delta, side by side with a streaming push of the same delta.
// A ~1 KB tool call's arguments (compact as OpenAI models write them, and spaced as json.dumps
// does; with and without the tool's schema) cut into token-sized deltas (3-5 characters), pushed
// through createJsonHealer and through createStream (default options, and echoBuffer: false);
// finish and finalize are timed apart. Rounds alternate the contenders; medians of the rounds.
// Then healJson of the whole text beside repair() of it (the non-streaming gateway's engine cost).
// Target (docs/gateway.md): a healed delta costs at most 2x a streaming push of that chunk.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createJsonHealer, createStream, healJson, repair, type StreamOptions } from '../../engine/index.js';
import { createRandom } from '../../support/random.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    filters: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, op: { enum: ['eq', 'lt', 'gt'] }, value: {} } } },
    limit: { type: 'integer' },
    notes: { type: 'string' },
  },
  required: ['query'],
};

/** A tool call's arguments of about 1 KB. */
function argumentsValue(): unknown {
  const filters = [];
  for (let k = 0; k < 8; k++) filters.push({ field: `field_${k}`, op: ['eq', 'lt', 'gt'][k % 3], value: k % 2 === 0 ? k * 12.5 : `value ${k}` });
  return {
    query: 'quarterly revenue by region for the enterprise segment, excluding returns',
    filters,
    limit: 50,
    notes: 'The user asked for the figures in EUR; convert where the source reports USD. '.repeat(6),
  };
}

/** `text` cut into token-sized deltas (3 to 5 characters), the same cut every run. */
function tokens(text: string): string[] {
  const random = createRandom(7);
  const out: string[] = [];
  for (let k = 0; k < text.length;) {
    const n = 3 + random.int(3);
    out.push(text.slice(k, k + n));
    k += n;
  }
  return out;
}

interface Timing { pushNs: number; endNs: number }

function timeHealer(deltas: string[], schema: object | undefined, sessions: number): Timing {
  let push = 0n;
  let end = 0n;
  let sink = 0;
  for (let s = 0; s < sessions; s++) {
    const healer = createJsonHealer({ schema });
    const t0 = process.hrtime.bigint();
    for (const d of deltas) sink += healer.push(d).length;
    const t1 = process.hrtime.bigint();
    sink += healer.finish().delta.length;
    end += process.hrtime.bigint() - t1;
    push += t1 - t0;
  }
  if (sink < 0) throw new Error('unreachable');
  return { pushNs: Number(push) / sessions, endNs: Number(end) / sessions };
}

function timeStream(deltas: string[], options: StreamOptions, sessions: number): Timing {
  let push = 0n;
  let end = 0n;
  let sink = 0;
  for (let s = 0; s < sessions; s++) {
    const stream = createStream(options);
    const t0 = process.hrtime.bigint();
    for (const d of deltas) sink += stream.push(d).brace_depth;
    const t1 = process.hrtime.bigint();
    sink += stream.finalize().success ? 1 : 0;
    end += process.hrtime.bigint() - t1;
    push += t1 - t0;
  }
  if (sink < 0) throw new Error('unreachable');
  return { pushNs: Number(push) / sessions, endNs: Number(end) / sessions };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const value = argumentsValue();
const texts = { compact: JSON.stringify(value), spaced: JSON.stringify(value, null, 1).replace(/\n */g, ' ') };
const ROUNDS = 15;
const SESSIONS = 200;
console.log(`heal bench: ${ROUNDS} rounds x ${SESSIONS} sessions, medians; times per delta (push) and per session (finish/finalize)`);
for (const [shape, text] of Object.entries(texts)) {
  const deltas = tokens(text);
  for (const schema of [undefined, SCHEMA]) {
    const options: StreamOptions = schema === undefined ? {} : { schema };
    const heal: Timing[] = [];
    const stream: Timing[] = [];
    const quiet: Timing[] = [];
    timeHealer(deltas, schema, SESSIONS); // warm up
    timeStream(deltas, options, SESSIONS);
    timeStream(deltas, { ...options, echoBuffer: false }, SESSIONS);
    for (let r = 0; r < ROUNDS; r++) {
      collect();
      heal.push(timeHealer(deltas, schema, SESSIONS));
      collect();
      stream.push(timeStream(deltas, options, SESSIONS));
      collect();
      quiet.push(timeStream(deltas, { ...options, echoBuffer: false }, SESSIONS));
    }
    const perDelta = (xs: Timing[]): number => median(xs.map((x) => x.pushNs)) / deltas.length;
    const ends = (xs: Timing[]): number => median(xs.map((x) => x.endNs)) / 1000;
    const h = perDelta(heal);
    const s = perDelta(stream);
    const q = perDelta(quiet);
    console.log(
      `${shape.padEnd(8)} ${schema === undefined ? 'no schema' : 'schema   '} ${text.length} chars, ${deltas.length} deltas | ` +
      `push ns/delta: healer ${h.toFixed(0)}, stream ${s.toFixed(0)} (${(h / s).toFixed(2)}x), stream echoBuffer:false ${q.toFixed(0)} (${(h / q).toFixed(2)}x) | ` +
      `finish ${ends(heal).toFixed(1)} us, finalize ${ends(stream).toFixed(1)} us`,
    );
  }
}

/** Median over rounds of the mean time of `work` over `calls` calls, in microseconds. */
function timeCalls(work: () => unknown, calls: number): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    collect();
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < calls; k++) work();
    rounds.push(Number(process.hrtime.bigint() - t0) / calls / 1000);
  }
  return median(rounds);
}

for (const [shape, text] of Object.entries(texts)) {
  for (const schema of [undefined, SCHEMA]) {
    const options = schema === undefined ? undefined : { schema };
    timeCalls(() => healJson(text, options), 500); // warm up
    timeCalls(() => repair(text, options), 500);
    const h = timeCalls(() => healJson(text, options), 2000);
    const r = timeCalls(() => repair(text, options), 2000);
    console.log(`${shape.padEnd(8)} ${schema === undefined ? 'no schema' : 'schema   '} healJson ${h.toFixed(1)} us, repair ${r.toFixed(1)} us (${(h / r).toFixed(2)}x)`);
  }
}

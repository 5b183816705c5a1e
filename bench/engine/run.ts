// `npm run bench:engine`: our repair against JSON.parse and jsonrepair, side by side in one process,
// on generated inputs (bench/engine/inputs.ts), checked against its targets (docs/design.md).
// Each input's repair is checked against the value it must produce, and a wrong value fails its
// target: the speed of a wrong answer is not a figure.
import { jsonrepair } from 'jsonrepair';
import { repair } from '../../engine/index.js';
import { formatBytes, formatDuration, formatNumber } from '../lib/format.js';
import { firstDifference } from '../../support/json-equal.js';
import { printTable } from '../lib/table.js';
import { measureInterleaved, megabytesPerSecond, type MeasureOptions } from '../lib/timing.js';
import { FAMILY_LIMIT, measureFamilies, printFamilies, rowsPass, VALID_LIMIT } from './families.js';
import { floorParse } from './floor-parser.js';
import { generateDocument, llmReply, malformDocument } from './inputs.js';

interface Result {
  input: string;
  implementation: string;
  bytes: number;
  nsPerOp: number;
  mbPerSecond: number;
  samples: number;
}

interface Target {
  name: string;
  measured: number;
  required: string;
  pass: boolean;
  note: string;
}

// jsonrepair takes seconds on the malformed megabyte (quadratic comma repairs): one warm-up call and
// as many runs as fit in its budget.
const SLOW_PEER: MeasureOptions = { warmupMs: 0, runs: 3, minRunMs: 0, budgetMs: 14_000 };
const FAST: MeasureOptions = { warmupMs: 300, runs: 7, minRunMs: 150, budgetMs: 5_000 };

const results: Result[] = [];

interface Contender {
  input: string;
  implementation: string;
  text: string;
  fn: () => unknown;
}

/** Times the contenders in alternating runs, since their ratio is what a target judges. */
function time(contenders: readonly Contender[], options = FAST): Result[] {
  const measurements = measureInterleaved(contenders.map((c) => c.fn), options);
  return contenders.map(({ input, implementation, text }, i) => {
    const { nsPerOp, samples } = measurements[i]!;
    const bytes = Buffer.byteLength(text);
    const result = { input, implementation, bytes, nsPerOp, mbPerSecond: megabytesPerSecond(bytes, nsPerOp), samples: samples.length };
    results.push(result);
    return result;
  });
}

interface Scaled {
  /** Time per byte on the 8x malformed input over time per byte on the 1 MB one, times 8. */
  scaling: number;
  /** The same ratio for JSON.parse on the valid documents. */
  parseScaling: number;
  wrong: string | null;
}

/** The 8x measurements, with the 8x inputs made here and garbage once this returns. */
function scaledMeasurements(malformedText: string, valid: string): Scaled {
  const valueX8 = generateDocument(8_000_000);
  const malformedX8 = malformDocument(valueX8);
  const validX8 = JSON.stringify(valueX8, null, 2);
  const wrong = wrongRepair(malformedX8.text, malformedX8.expected);
  const [our1, our8] = time([
    { input: 'malformed 1 MB', implementation: 'jsonmend repair (8x reference)', text: malformedText, fn: () => repair(malformedText) },
    { input: 'malformed 8 MB', implementation: 'jsonmend repair (8x reference)', text: malformedX8.text, fn: () => repair(malformedX8.text) },
  ], { ...FAST, budgetMs: 12_000 });
  // The platform's own scaling, as a reference for the 8x target: V8's parser on the same documents.
  const [parse1, parse8] = time([
    { input: 'valid 1 MB', implementation: 'JSON.parse (8x reference)', text: valid, fn: () => JSON.parse(valid) },
    { input: 'valid 8 MB', implementation: 'JSON.parse (8x reference)', text: validX8, fn: () => JSON.parse(validX8) },
  ], { ...FAST, budgetMs: 8_000 });
  // The 8x input is 8x the document, not exactly 8x the bytes: compare time per byte.
  return {
    scaling: (our8.nsPerOp / our1.nsPerOp) * (our1.bytes / our8.bytes) * 8,
    parseScaling: (parse8.nsPerOp / parse1.nsPerOp) * (parse1.bytes / parse8.bytes) * 8,
    wrong,
  };
}

/** Why our repair of `text` is not `expected`, or null when it is. */
function wrongRepair(text: string, expected: unknown, mustBeUntouched = false): string | null {
  let response;
  try {
    response = repair(text);
  } catch (error) {
    return `repair threw: ${String(error)}`;
  }
  if (!response.success) return `repair failed: ${response.metadata.errors.map((e) => e.code).join(', ')}`;
  const at = firstDifference(response.repaired, expected);
  if (at !== null) return `wrong value at "${at}"`;
  if (mustBeUntouched && response.metadata.was_repaired) return 'valid input reported as repaired';
  return null;
}

/** Why jsonrepair's output for `text` does not parse to `expected`, or null (shown for information). */
function wrongPeer(text: string, expected: unknown): string | null {
  try {
    const at = firstDifference(JSON.parse(jsonrepair(text)), expected);
    return at === null ? null : `differs at "${at}"`;
  } catch (error) {
    return `throws: ${(error as Error).message}`;
  }
}

function target(name: string, measured: number, required: string, pass: boolean, wrong: string | null): Target {
  const note = wrong === null ? '' : `our repair is wrong here (${wrong})`;
  return { name, measured, required, pass: pass && wrong === null, note };
}

function main(): void {
  const startedAt = Date.now();
  const value = generateDocument(1_000_000);
  const valid = JSON.stringify(value, null, 2);
  const malformed = malformDocument(value);
  const reply = llmReply();

  // The small reply first: after jsonrepair has spent seconds on the malformed megabyte, its time on a
  // 1 KB reply was measured 10x slower than in a fresh process, which would flatter our ratio.
  const [ourReply, peerReply] = time([
    { input: 'LLM reply 1 KB', implementation: 'jsonmend repair', text: reply.text, fn: () => repair(reply.text) },
    { input: 'LLM reply 1 KB', implementation: 'jsonrepair (from the fence)', text: reply.fromFence, fn: () => jsonrepair(reply.fromFence) },
  ]);
  // What the 10x target asks, put against what any JavaScript reader costs here: the repaired reply,
  // as valid JSON, read by a parser that repairs nothing (floor-parser.ts) and by JSON.parse.
  const repairedReply = JSON.stringify(reply.expected, null, 2);
  const floorWrong = firstDifference(floorParse(repairedReply), reply.expected);
  if (floorWrong !== null) throw new Error(`floor-parser.ts reads the repaired reply wrong at "${floorWrong}"`);
  const [floor, parseReply] = time([
    { input: 'LLM reply 1 KB, repaired', implementation: 'no-repair JS parser (floor)', text: repairedReply, fn: () => floorParse(repairedReply) },
    { input: 'LLM reply 1 KB, repaired', implementation: 'JSON.parse', text: repairedReply, fn: () => JSON.parse(repairedReply) },
  ]);
  // The one absolute target, timed before the megabyte runs of the others: their garbage is
  // collected during whatever is timed next. Measured in fresh processes: 7.8-8.4 ms timed first,
  // 9.3-16.8 ms right after the valid megabyte's runs, 8.6-13.1 ms after one jsonrepair call on it.
  const [ourMalformed] = time([
    { input: 'malformed 1 MB', implementation: 'jsonmend repair', text: malformed.text, fn: () => repair(malformed.text) },
  ]);
  const [parse, ourValid] = time([
    { input: 'valid 1 MB', implementation: 'JSON.parse', text: valid, fn: () => JSON.parse(valid) },
    { input: 'valid 1 MB', implementation: 'jsonmend repair', text: valid, fn: () => repair(valid) },
  ]);
  time([{ input: 'valid 1 MB', implementation: 'jsonrepair', text: valid, fn: () => jsonrepair(valid) }], { ...FAST, runs: 5 });

  // The malformation families (families.ts): each ~1.5 MB document broken one way, against JSON.parse
  // on the valid one, all alternating in one process; made and dropped here, before the 8x inputs.
  const familyRows = measureFamilies();

  // The 8x inputs exist only for the scaling measurements: held from the start, their ~150 MB of live
  // objects made every garbage collection of the 1 MB measurements mark them too (malformed 1 MB
  // measured 10.8 ms with them alive, 7.1 ms in a process of its own). Both sides of each 8x ratio
  // run in the same heap, alternating.
  const scaled = scaledMeasurements(malformed.text, valid);

  // Each input's repair is checked against the value it must produce, after the 1 MB timings: walking
  // two megabyte values before them slowed the malformed megabyte's timing (7.4-7.9 -> 9.9-10.3 ms in
  // two of three fresh processes). A wrong value fails its target all the same. Each check also
  // covers the input's truncated or complete sibling.
  const wrong = {
    valid: wrongRepair(valid, JSON.parse(valid), true),
    malformed: wrongRepair(malformed.text, malformed.expected) ?? wrongRepair(malformed.complete.text, malformed.complete.expected),
    reply: wrongRepair(reply.text, reply.expected),
    scaled: scaled.wrong,
  };

  const [peerMalformed] = time([
    { input: 'malformed 1 MB', implementation: 'jsonrepair', text: malformed.text, fn: () => jsonrepair(malformed.text) },
  ], SLOW_PEER);

  // Informational, and last: jsonrepair's seconds on the megabyte leave garbage that any
  // measurement after them pays for.
  const peer = {
    malformed: wrongPeer(malformed.text, malformed.expected),
    reply: wrongPeer(reply.fromFence, reply.expected),
  };

  printTable(
    ['input', 'implementation', 'size', 'time/op', 'MB/s', 'runs'],
    results.map((r) => [r.input, r.implementation, formatBytes(r.bytes), formatDuration(r.nsPerOp), formatNumber(r.mbPerSecond), r.samples]),
  );

  process.stdout.write('\n');
  printFamilies(familyRows);
  // The families' target judges the broken documents only: the valid one has its own target below.
  const brokenRows = familyRows.slice(1, -1);
  const familiesPass = rowsPass(brokenRows);

  const { scaling, parseScaling } = scaled;
  const targets: Target[] = [
    target('valid 1 MB vs JSON.parse', ourValid.mbPerSecond / parse.mbPerSecond, '>= 0.8x', ourValid.mbPerSecond >= 0.8 * parse.mbPerSecond, wrong.valid),
    target('malformed 1 MB throughput (MB/s)', ourMalformed.mbPerSecond, '>= 100', ourMalformed.mbPerSecond >= 100, wrong.malformed),
    target('malformed 1 MB vs jsonrepair', peerMalformed.nsPerOp / ourMalformed.nsPerOp, '>= 50x', peerMalformed.nsPerOp >= 50 * ourMalformed.nsPerOp, wrong.malformed),
    target('1 KB reply vs jsonrepair', peerReply.nsPerOp / ourReply.nsPerOp, '>= 10x', peerReply.nsPerOp >= 10 * ourReply.nsPerOp, wrong.reply),
    target('8x malformed input: time ratio', scaling, '<= 8.0', scaling <= 8.0, wrong.scaled),
    target('malformation families: worst x JSON.parse', Math.max(...brokenRows.map((r) => r.ratio)), `<= ${FAMILY_LIMIT}x`, familiesPass, brokenRows.find((r) => r.wrong !== null)?.wrong ?? null),
    target('valid ~1.5 MB: x JSON.parse', familyRows[0]!.ratio, `<= ${VALID_LIMIT}x`, familyRows[0]!.ratio <= VALID_LIMIT, familyRows[0]!.wrong),
  ];
  process.stdout.write('\n');
  printTable(
    ['target', 'measured', 'required', 'result'],
    targets.map((t) => [t.name, formatNumber(t.measured), t.required, t.pass ? 'pass' : `FAIL ${t.note}`]),
  );
  process.stdout.write(`reference: JSON.parse on 8x the valid document takes ${formatNumber(parseScaling)}x the time ` +
    '(garbage collection of a larger live heap; the same effect is in our 8x ratio)\n');
  process.stdout.write(`reference: the 1 KB target allows ${formatDuration(peerReply.nsPerOp / 10)} a reply; on the repaired reply a JavaScript ` +
    `parser that repairs nothing takes ${formatDuration(floor.nsPerOp)}, JSON.parse ${formatDuration(parseReply.nsPerOp)}\n`);
  for (const [input, why] of Object.entries(peer)) {
    if (why !== null) process.stdout.write(`note: jsonrepair on the ${input} input ${why}\n`);
  }

  const pass = targets.every((t) => t.pass);
  const summary = {
    bench: 'engine',
    node: process.version,
    date: new Date(startedAt).toISOString(),
    seconds: Math.round((Date.now() - startedAt) / 100) / 10,
    results: results.map((r) => ({ input: r.input, implementation: r.implementation, bytes: r.bytes, ns_per_op: Math.round(r.nsPerOp), mb_per_s: Number(r.mbPerSecond.toFixed(2)), runs: r.samples })),
    targets: targets.map((t) => ({ name: t.name, measured: Number(t.measured.toFixed(3)), required: t.required, pass: t.pass, ...(t.note ? { note: t.note } : {}) })),
    peer_correct: { malformed: peer.malformed ?? 'ok', reply: peer.reply ?? 'ok' },
    json_parse_8x_time_ratio: Number(parseScaling.toFixed(3)),
    families: familyRows.map((r) => ({ family: r.name, bytes: r.bytes, ns_per_op: Math.round(r.nsPerOp), x_json_parse: Number(r.ratio.toFixed(3)), ...(r.wrong === null ? {} : { wrong: r.wrong }) })),
    reply_floor_ns: { target_allows: Math.round(peerReply.nsPerOp / 10), no_repair_js_parser: Math.round(floor.nsPerOp), json_parse: Math.round(parseReply.nsPerOp) },
    pass,
  };
  process.stdout.write(`\n${JSON.stringify(summary)}\n`);
  if (!pass) process.exitCode = 1;
}

main();

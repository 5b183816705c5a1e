// `npm run bench:schema`: what a JSON Schema adds to a repair, side by side in one process with
// BAML's Schema-Aligned Parsing (`b.parse`, schema-baml.ts installs it on demand; its rows say
// "absent" when it cannot be installed or run). One table, default options first:
// - the 1 KB language-model reply of bench/engine/inputs.ts (prose, a fence, unquoted keys, Python
//   literals, trailing commas, cut mid-string) with the 11-field schema below, against the repair
//   without a schema (target <= 2x) and against BAML's parse of the same reply (target >= 30x faster);
// - the same reply grown 8x (more rows in its array), against the 1 KB one (target <= 10x the time);
// - the reply's value as valid JSON with the schema, against JSON.parse + ajv validation of the same
//   schema compiled once (target <= 1.5x);
// - the schema pass alone, five coercions, and the first compile (cold process; a new schema).
// The targets are judged as a library caller runs it: one schema object, passed with every call
// (the engine, like ajv, knows an object it has compiled). The server's case is measured too: its
// schema is parsed from each request, so every call brings a new, equal object; both sides of those
// rows parse the schema text in the loop, as a server must.
// `--no-baml` leaves BAML out. Run under `flock /tmp/jsonmend-bench.lock` on a shared machine.
import { parseArgs } from 'node:util';
import AjvModule from 'ajv';
import { repair } from '../../engine/index.js';
import { applySchema, clearSchemaCache } from '../../engine/schema/index.js';
import { formatDuration, formatNumber } from '../lib/format.js';
import { firstDifference } from '../../support/json-equal.js';
import { printTable } from '../lib/table.js';
import { measureInterleaved, median, type MeasureOptions } from '../lib/timing.js';
import { llmReply, SEED } from './inputs.js';
import { BAML_VERSION, loadBaml, type BamlParse } from './schema-baml.js';

// CPU time of this process: on the shared machine, wall time measured the neighbours (a 1 KB repair
// read 18-127 µs from one run to the next); CPU time holds the ratios steady.
const FAST: MeasureOptions = { warmupMs: 300, runs: 9, minRunMs: 150, budgetMs: 12_000, clock: 'cpu' };
const BAML_RUNS: MeasureOptions = { warmupMs: 500, runs: 5, minRunMs: 200, budgetMs: 15_000, clock: 'cpu' };

const replySchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    role: { enum: ['analyst', 'engineer', 'manager'] },
    active: { type: 'boolean' },
    verified: { type: 'boolean' },
    manager: { type: ['string', 'null'] },
    skills: { type: 'array', items: { type: 'string' } },
    projects: {
      type: 'array',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, year: { type: 'integer', minimum: 1800 }, pages: { type: 'integer' }, public: { type: 'boolean' } },
        required: ['title', 'year'],
        additionalProperties: false,
      },
    },
    address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' }, note: { type: ['string', 'null'] } } },
    bio: { type: 'string' },
  },
  required: ['name', 'role', 'projects'],
};

// The same reply under a schema that wants every page count as a string: five type coercions.
const coercingSchema = structuredClone(replySchema);
coercingSchema.properties.projects.items.properties.pages = { type: 'string' } as never;

function check(label: string, actual: unknown, expected: unknown): void {
  const difference = firstDifference(actual, expected);
  if (difference !== null) throw new Error(`${label}: wrong result, not timed (${difference})`);
}

function nsOf(fn: () => unknown, runs = 15): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return median(samples);
}

/** The reply with the fewest rows that is at least `factor` times as long as the 1 KB one. */
function grownReply(factor: number): ReturnType<typeof llmReply> {
  const target = factor * Buffer.byteLength(llmReply().text);
  let rows = 5;
  let reply = llmReply(SEED, rows);
  while (Buffer.byteLength(reply.text) < target) reply = llmReply(SEED, ++rows);
  return reply;
}

/** BAML read the reply (its enum comes back as the member's name, `public` as `is_public`). */
function checkBaml(label: string, value: unknown, expected: { name: string; projects: unknown[]; bio: string }): void {
  const v = value as { name?: unknown; projects?: unknown[]; bio?: unknown; role?: unknown };
  if (v.name !== expected.name || v.projects?.length !== expected.projects.length || v.bio !== expected.bio || v.role !== 'Analyst') {
    throw new Error(`${label}: BAML did not read the reply, not timed (${JSON.stringify(value).slice(0, 200)})`);
  }
}

type Row = { name: string; ns: number | null; against?: string; ratio?: number; required?: string; pass?: boolean };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'no-baml': { type: 'boolean', default: false } } });
  const reply = llmReply();
  const bytes = Buffer.byteLength(reply.text);
  const big = grownReply(8);
  const bigBytes = Buffer.byteLength(big.text);

  // The very first compile in this process also compiles ajv's meta-schema for the draft.
  const start = process.hrtime.bigint();
  const first = repair(reply.text, { schema: replySchema });
  const coldCompileNs = Number(process.hrtime.bigint() - start) - nsOf(() => repair(reply.text, { schema: replySchema }));
  check('first repair with schema', first.repaired, reply.expectedWithSchema);

  // The library caller's schema: one object. The server's: parsed from each request's text.
  const schema = (): object => replySchema;
  const coercing = (): object => coercingSchema;
  const schemaText = JSON.stringify(replySchema);
  const parsedSchema = (): object => JSON.parse(schemaText) as object;
  const coerced = repair(reply.text, { schema: coercing() });
  const pages = (reply.expected as { projects: { pages: number }[] }).projects.map((p) => ({ ...p, pages: String(p.pages) }));
  check('coercing schema', coerced.repaired, { ...reply.expectedWithSchema, projects: pages });
  if (coerced.metadata.schema_repairs.length !== 5) throw new Error('coercing schema: expected 5 schema repairs');
  check('no schema', repair(reply.text).repaired, reply.expected);
  check('8x reply with schema', repair(big.text, { schema: schema() }).repaired, big.expectedWithSchema);

  const validText = JSON.stringify(reply.expected);
  const ajv = new AjvModule.default({ allErrors: false, strict: false });
  const validate = ajv.compile(replySchema);
  if (!validate(JSON.parse(validText))) throw new Error('valid reply: ajv rejects it');
  check('valid reply with schema', repair(validText, { schema: schema() }).repaired, reply.expected);
  check('valid reply with a parsed schema', repair(validText, { schema: parsedSchema() }).repaired, reply.expected);
  check('1 KB reply with a parsed schema', repair(reply.text, { schema: parsedSchema() }).repaired, reply.expectedWithSchema);

  // Each comparison is measured in its own interleaved group: garbage one case leaves (the 8x reply's
  // most of all) is collected while the next runs, and would be charged to a case it is not compared with.
  const [plain, cached, cachedCoercing] = measureInterleaved([
    () => repair(reply.text),
    () => repair(reply.text, { schema: schema() }),
    () => repair(reply.text, { schema: coercing() }),
  ], FAST);
  const [smallAgain, bigCached] = measureInterleaved([
    () => repair(reply.text, { schema: schema() }),
    () => repair(big.text, { schema: schema() }),
  ], FAST);
  const [validRepair, parseAjv, parseAndSchema] = measureInterleaved([
    () => repair(validText, { schema: schema() }),
    () => validate(JSON.parse(validText)),
    () => applySchema(JSON.parse(validText), schema(), 'strict'),
  ], FAST);
  // The server's case: a new schema object per call, parsed from the same text on both sides.
  const [plainParsing, perRequest, validPerRequest, parseAjvParsing] = measureInterleaved([
    () => [parsedSchema(), repair(reply.text)],
    () => repair(reply.text, { schema: parsedSchema() }),
    () => repair(validText, { schema: parsedSchema() }),
    () => [parsedSchema(), validate(JSON.parse(validText))],
  ], FAST);
  // A schema this process has not seen: clear the cache before each call (meta-schemas stay compiled).
  const warmCompileNs = nsOf(() => {
    clearSchemaCache();
    return applySchema(JSON.parse(validText), schema(), 'strict');
  }) - parseAndSchema!.nsPerOp;

  // BAML is loaded only now: its native runtime keeps threads of its own, whose CPU time (and
  // whose competition for the two cores) would otherwise land in jsonmend's figures.
  let baml: BamlParse | null = null;
  let bamlNote = 'left out (--no-baml)';
  if (values['no-baml'] !== true) {
    const loaded = await loadBaml();
    if ('parse' in loaded) {
      baml = loaded.parse;
      bamlNote = `@boundaryml/baml ${BAML_VERSION}, in ${loaded.dir}`;
      checkBaml('BAML, 1 KB', baml(reply.text), reply.expected as never);
      checkBaml('BAML, 8x', baml(big.text), big.expected as never);
    } else bamlNote = `absent: ${loaded.absent}`;
  }

  // BAML is measured on its own (its 8x reply takes milliseconds): interleaving would stretch every run.
  const [bamlSmall, bamlBig] = baml === null ? [null, null] : measureInterleaved([() => baml(reply.text), () => baml(big.text)], BAML_RUNS);

  const ratio = (a: number, b: number): number => a / b;
  const rows: Row[] = [
    { name: `repair, ${bytes} B reply, cached schema (default options)`, ns: cached!.nsPerOp },
    { name: `repair, ${bytes} B reply, no schema`, ns: plain!.nsPerOp },
    { name: 'schema vs no schema (1 KB)', ns: null, against: 'no schema', ratio: ratio(cached!.nsPerOp, plain!.nsPerOp), required: '<= 2x' },
    { name: `BAML b.parse, ${bytes} B reply`, ns: bamlSmall?.nsPerOp ?? null },
    { name: 'BAML vs jsonmend with schema (1 KB)', ns: null, against: 'jsonmend', ratio: bamlSmall === null ? undefined : ratio(bamlSmall.nsPerOp, cached!.nsPerOp), required: '>= 30x' },
    { name: `repair, ${bigBytes} B reply (8x), cached schema`, ns: bigCached!.nsPerOp },
    { name: '8x the input vs 1 KB, with schema', ns: null, against: '1 KB', ratio: ratio(bigCached!.nsPerOp, smallAgain!.nsPerOp), required: '<= 10x' },
    { name: `BAML b.parse, ${bigBytes} B reply (8x)`, ns: bamlBig?.nsPerOp ?? null },
    { name: 'BAML: 8x the input vs 1 KB', ns: null, against: '1 KB', ratio: bamlSmall === null || bamlBig === null ? undefined : ratio(bamlBig.nsPerOp, bamlSmall.nsPerOp) },
    { name: 'BAML vs jsonmend with schema (8x)', ns: null, against: 'jsonmend', ratio: bamlBig === null ? undefined : ratio(bamlBig.nsPerOp, bigCached!.nsPerOp) },
    { name: `repair, valid ${Buffer.byteLength(validText)} B JSON, cached schema`, ns: validRepair!.nsPerOp },
    { name: 'JSON.parse + ajv validate (compiled once)', ns: parseAjv!.nsPerOp },
    { name: 'valid JSON with schema vs JSON.parse + ajv', ns: null, against: 'parse + ajv', ratio: ratio(validRepair!.nsPerOp, parseAjv!.nsPerOp), required: '<= 1.5x' },
    { name: 'repair, 1 KB reply, cached schema, 5 coercions', ns: cachedCoercing!.nsPerOp },
    { name: 'five coercions vs no schema', ns: null, against: 'no schema', ratio: ratio(cachedCoercing!.nsPerOp, plain!.nsPerOp), required: '<= 2x' },
    { name: 'JSON.parse + applySchema (cached)', ns: parseAndSchema!.nsPerOp },
    { name: 'server case: 1 KB reply, schema parsed per call', ns: perRequest!.nsPerOp },
    { name: 'vs no schema (its text parsed all the same)', ns: null, against: 'no schema + parse', ratio: ratio(perRequest!.nsPerOp, plainParsing!.nsPerOp) },
    { name: 'server case: valid JSON, schema parsed per call', ns: validPerRequest!.nsPerOp },
    { name: 'vs JSON.parse + ajv (schema text parsed too)', ns: null, against: 'parse + ajv + parse', ratio: ratio(validPerRequest!.nsPerOp, parseAjvParsing!.nsPerOp) },
    { name: 'first compile, cold process', ns: coldCompileNs },
    { name: 'first compile of a new schema', ns: warmCompileNs },
  ];
  const limit = (required: string): { max: boolean; value: number } => ({ max: required.startsWith('<='), value: Number(required.replace(/[^\d.]/g, '')) });
  for (const row of rows) {
    if (row.required === undefined || row.ratio === undefined) continue;
    const { max, value } = limit(row.required);
    row.pass = max ? row.ratio <= value : row.ratio >= value;
  }
  printTable(['case', 'time/op', 'ratio', 'target', 'result'], rows.map((row) => [
    row.name,
    row.against !== undefined ? '' : row.ns === null ? 'absent' : formatDuration(row.ns),
    row.against === undefined ? '' : row.ratio === undefined ? 'absent' : `${formatNumber(row.ratio)}x`,
    row.required ?? '',
    row.required === undefined ? '' : row.pass === undefined ? 'absent' : row.pass ? 'pass' : 'FAIL',
  ]));
  process.stdout.write(`BAML: ${bamlNote}\n`);
  const judged = rows.filter((row) => row.pass !== undefined);
  const summary = {
    bench: 'schema',
    node: process.version,
    bytes,
    bigBytes,
    baml: baml === null ? bamlNote : BAML_VERSION,
    results: Object.fromEntries(rows.filter((row) => row.against === undefined).map((row) => [row.name, row.ns === null ? null : Math.round(row.ns)])),
    targets: rows.filter((row) => row.required !== undefined).map((row) => ({ name: row.name, measured: row.ratio === undefined ? null : Number(row.ratio.toFixed(3)), required: row.required, pass: row.pass ?? null })),
    pass: judged.every((row) => row.pass),
  };
  process.stdout.write(`\n${JSON.stringify(summary)}\n`);
  if (!summary.pass) process.exitCode = 1;
}

await main();

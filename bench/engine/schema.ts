// `npm run bench:schema`: what a JSON Schema adds to a repair. The 1 KB language-model
// reply of bench/engine/inputs.ts is repaired without a schema and with a cached one (target: under
// 2x), then the schema pass alone is timed on a parsed value, and the first compile is measured
// (cold: the first schema this process sees; warm: a new schema after that).
// Each schema request gets its own, equal schema object, as requests parsed by the server would.
import { repair } from '../../engine/index.js';
import { applySchema, clearSchemaCache } from '../../engine/schema/index.js';
import { formatDuration, formatNumber } from '../lib/format.js';
import { firstDifference } from '../../support/json-equal.js';
import { printTable } from '../lib/table.js';
import { measureInterleaved, median, type MeasureOptions } from '../lib/timing.js';
import { llmReply } from './inputs.js';

const FAST: MeasureOptions = { warmupMs: 300, runs: 9, minRunMs: 150, budgetMs: 8_000 };
const COPIES = 64;

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

/** Equal but distinct schema objects, used in turn, so nothing can hinge on object identity. */
function copies(schema: object): () => object {
  const text = JSON.stringify(schema);
  const list = Array.from({ length: COPIES }, () => JSON.parse(text) as object);
  let next = 0;
  return () => list[next++ % COPIES]!;
}

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

function main(): void {
  const reply = llmReply();
  const bytes = Buffer.byteLength(reply.text);

  // The very first compile in this process also compiles ajv's meta-schema for the draft.
  const start = process.hrtime.bigint();
  const first = repair(reply.text, { schema: replySchema });
  const coldCompileNs = Number(process.hrtime.bigint() - start) - nsOf(() => repair(reply.text, { schema: replySchema }));
  check('first repair with schema', first.repaired, reply.expected);

  const schema = copies(replySchema);
  const coercing = copies(coercingSchema);
  const coerced = repair(reply.text, { schema: coercing() });
  const pages = (reply.expected as { projects: { pages: number }[] }).projects.map((p) => ({ ...p, pages: String(p.pages) }));
  check('coercing schema', coerced.repaired, { ...(reply.expected as object), projects: pages });
  if (coerced.metadata.schema_repairs.length !== 5) throw new Error('coercing schema: expected 5 schema repairs');
  check('no schema', repair(reply.text).repaired, reply.expected);

  const parsedText = JSON.stringify(reply.expected);
  const [plain, cached, cachedCoercing, parseOnly, parseAndSchema] = measureInterleaved([
    () => repair(reply.text),
    () => repair(reply.text, { schema: schema() }),
    () => repair(reply.text, { schema: coercing() }),
    () => JSON.parse(parsedText),
    () => applySchema(JSON.parse(parsedText), schema(), 'strict'),
  ], FAST);

  // A schema this process has not seen: clear the cache before each call (meta-schemas stay compiled).
  const warmCompileNs = nsOf(() => {
    clearSchemaCache();
    return applySchema(JSON.parse(parsedText), schema(), 'strict');
  }) - parseAndSchema!.nsPerOp;

  const rows = [
    ['repair, no schema', plain!.nsPerOp],
    ['repair, cached schema (conforming)', cached!.nsPerOp],
    ['repair, cached schema (5 coercions)', cachedCoercing!.nsPerOp],
    ['JSON.parse of the value', parseOnly!.nsPerOp],
    ['JSON.parse + applySchema (cached)', parseAndSchema!.nsPerOp],
    ['first compile, cold process', coldCompileNs],
    ['first compile of a new schema', warmCompileNs],
  ] as const;
  printTable(['case (1 KB reply: ' + bytes + ' bytes)', 'time/op'], rows.map(([name, ns]) => [name, formatDuration(ns)]));

  const ratio = cached!.nsPerOp / plain!.nsPerOp;
  const ratioCoercing = cachedCoercing!.nsPerOp / plain!.nsPerOp;
  const targets = [
    { name: 'cached schema vs no schema', measured: ratio, required: '< 2x', pass: ratio < 2 },
    { name: 'cached schema with 5 coercions vs no schema', measured: ratioCoercing, required: '< 2x', pass: ratioCoercing < 2 },
  ];
  process.stdout.write('\n');
  printTable(['target', 'measured', 'required', 'result'], targets.map((t) => [t.name, formatNumber(t.measured), t.required, t.pass ? 'pass' : 'FAIL']));
  const summary = {
    bench: 'schema',
    node: process.version,
    bytes,
    results: Object.fromEntries(rows.map(([name, ns]) => [name, Math.round(ns)])),
    targets: targets.map((t) => ({ ...t, measured: Number(t.measured.toFixed(3)) })),
    pass: targets.every((t) => t.pass),
  };
  process.stdout.write(`\n${JSON.stringify(summary)}\n`);
  if (!summary.pass) process.exitCode = 1;
}

main();

// `npm run fuzz`: the longer fuzzing run the test suite samples, for humans.
//   engine properties per input family (scripts/fuzz-families.ts), a larger budget than the suite;
//   repair time at 1x and 8x size per family (linear time);
//   the slowest legitimate repairs at MAX_PAYLOAD_BYTES (what TASK_TIMEOUT_MS must exceed);
//   with --http, batches of hostile requests against the real server (scripts/fuzz-http.ts).
// Options: --runs N (per family, default 2000), --seed S (default: random, printed), --max-bytes N,
// --http (add the HTTP run), --batches N (HTTP, default 40). Exit 1 when any check failed.
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { createRandom } from '../support/random.js';
import { renderTable } from '../bench/lib/table.js';
import { runRepairTask } from '../server/batch/repair-task.js';
import { installCleanup } from '../support/server-process.js';
import { brokenInputViolation, measureScaling, validInputViolation } from './fuzz-check.js';
import { FAMILIES } from './fuzz-families.js';
import { fuzzHttp } from './fuzz-http.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    seed: { type: 'string' },
    'max-bytes': { type: 'string', default: '50000' },
    http: { type: 'boolean', default: false },
    batches: { type: 'string', default: '40' },
  },
});
const RUNS = Number(values.runs);
const SEED = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const MAX_BYTES = Number(values['max-bytes']);
const MAX_PAYLOAD_BYTES = 5 * 1024 * 1024;
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function properties(): number {
  let failures = 0;
  for (const family of FAMILIES) {
    const started = performance.now();
    const checks: [string, (random: ReturnType<typeof createRandom>, bytes: number) => string, (text: string) => string | null, number][] = [
      ['broken', family.broken, brokenInputViolation, RUNS],
    ];
    if (family.valid !== null) checks.push(['valid', family.valid, validInputViolation, Math.ceil(RUNS / 2)]);
    for (const [label, build, check, runs] of checks) {
      const outcome = fc.check(fc.property(fc.nat(), fc.integer({ min: 1, max: MAX_BYTES }), (seed, bytes) => {
        const problem = check(build(createRandom(seed), bytes));
        if (problem !== null) throw new Error(`${problem} (family seed ${seed}, ${bytes} bytes)`);
      }), { seed: SEED, numRuns: runs });
      if (outcome.failed) {
        failures++;
        say(`FAIL ${family.name} ${label}: ${String(outcome.errorInstance)}`);
      }
    }
    say(`  ${family.name}: ${RUNS} broken${family.valid === null ? '' : ` + ${Math.ceil(RUNS / 2)} valid`} texts up to ${MAX_BYTES} chars in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return failures;
}

function scaling(): number {
  const rows = FAMILIES.map((family) => {
    const s = measureScaling(family, 1, 64 * 1024, 8, 5);
    return [family.name, s.seed, s.smallChars, s.smallMs.toFixed(2), s.largeChars, s.largeMs.toFixed(2), s.perCharRatio.toFixed(2)];
  });
  say(renderTable(['family', 'seed', '1x chars', '1x ms', '8x chars', '8x ms', 'time per char, 8x / 1x'], rows));
  // Quadratic work would show 8 here; allow noise from a shared machine, not a trend.
  return rows.filter((row) => Number(row[6]) >= 4).length;
}

/** The family's text cut to at most `limit` UTF-8 bytes. */
function withinBytes(text: string, limit: number): string {
  let out = text;
  for (let bytes = Buffer.byteLength(out); bytes > limit; bytes = Buffer.byteLength(out)) out = out.slice(0, Math.floor((out.length * limit) / bytes) - 16);
  return out;
}

/**
 * The slowest legitimate pool tasks: a body at the payload limit through runRepairTask, as a worker
 * runs it (parse the body, repair, serialize the answer), with and without a schema. TASK_TIMEOUT_MS
 * must stay well above these, or valid requests would be cut off.
 */
function deadlineRationale(): number {
  const settings = { contract: 'auto' as const, maxPayloadBytes: MAX_PAYLOAD_BYTES, demoMessage: '' };
  const run = (body: string): [number, string] => {
    const started = performance.now();
    const result = runRepairTask({ endpoint: 'repair', body: Buffer.from(body), warnings: null, schemaGate: null }, settings);
    const ms = performance.now() - started;
    const answer = JSON.parse(typeof result === 'string' ? '{}' : result.body);
    return [ms, answer.success === true ? 'repaired' : String(answer.metadata?.errors?.[0]?.code)];
  };
  run(JSON.stringify({ raw_output: FAMILIES[3]!.broken(createRandom(1), 50_000) })); // warm up
  const rows: (string | number)[][] = [];
  for (const family of FAMILIES) {
    const text = withinBytes(family.broken(createRandom(7), MAX_PAYLOAD_BYTES), MAX_PAYLOAD_BYTES);
    const [ms, outcome] = run(JSON.stringify({ raw_output: text }));
    rows.push([family.name, 'none', Buffer.byteLength(text), ms.toFixed(0), outcome]);
  }
  // A schema over every record: validation and coercion walk the whole value.
  const records = withinBytes(FAMILIES[3]!.valid!(createRandom(7), MAX_PAYLOAD_BYTES), MAX_PAYLOAD_BYTES);
  const schema = { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, price: { type: 'number' }, active: { type: 'boolean' } }, required: ['id', 'name', 'price'] } };
  const [ms, outcome] = run(JSON.stringify({ raw_output: records.slice(0, -1000), schema, mode: 'lenient' }));
  rows.push(['many-repairs (valid, cut)', 'records', Buffer.byteLength(records) - 1000, ms.toFixed(0), outcome]);
  say(renderTable(['family at the 5 MiB limit', 'schema', 'input bytes', 'task ms', 'outcome'], rows));
  return Math.max(...rows.map((row) => Number(row[3])));
}

async function main(): Promise<number> {
  installCleanup(() => {});
  say(`fuzz: seed ${SEED} (rerun with --seed ${SEED}), ${RUNS} runs per family, texts up to ${MAX_BYTES} chars\n`);
  say('engine properties: never throws; a success serializes and re-parses to itself; idempotent; valid JSON unchanged');
  let failures = properties();
  say('\nrepair time against size (broken texts, same seed, fastest of 5)');
  failures += scaling();
  say('\nslowest legitimate pool tasks (body parse + repair + serialize, this thread): TASK_TIMEOUT_MS must stay well above these');
  const slowest = deadlineRationale();
  say(`slowest ${slowest.toFixed(0)} ms: the default TASK_TIMEOUT_MS of 5000 ms is ${(5000 / slowest).toFixed(1)}x that`);
  if (values.http) {
    say('\nHTTP: hostile requests against the real server, /health checked after each batch of 25');
    const report = await fuzzHttp(createRandom(SEED), Number(values.batches), 25, say);
    say(`  ${report.requests} requests, ${report.rawRequests} cut-off raw requests, ${report.healthChecks} health checks, ${report.problems.length} problems`);
    for (const problem of report.problems.slice(0, 20)) say(`  FAIL ${problem}`);
    failures += report.problems.length;
  }
  say(failures === 0 ? '\nall checks passed' : `\n${failures} check(s) FAILED`);
  return failures === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`fuzz failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
});

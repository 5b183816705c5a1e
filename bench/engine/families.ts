// The malformation families: one ~1.5 MB document spelled valid and broken one way
// throughout — unquoted keys, single quotes, trailing commas, Python literals, line comments, block
// comments, missing commas, a cut, and all the JavaScript habits at once — each repair timed against
// JSON.parse on the valid document, all alternating in one process, in blocks of two calls: each
// ratio is the median over rounds of that round's repair time over that round's JSON.parse time
// (timing.ts pairedRatios), so a slow spell of a shared machine lands on one round, not on one
// denominator for the whole table. Part of `npm run bench:engine`;
// `node dist/bench/engine/families.js` runs this table alone.
import { fileURLToPath } from 'node:url';
import { repair } from '../../engine/index.js';
import { formatBytes, formatDuration, formatNumber } from '../lib/format.js';
import { firstDifference } from '../../support/json-equal.js';
import { printTable } from '../lib/table.js';
import { pairedRatios } from '../lib/timing.js';
import { MalformedEmitter, type MalformedStyle } from './emit-malformed.js';
import { generateDocument, SEED } from './inputs.js';
import { createRandom } from '../../support/random.js';

/** Repair time over JSON.parse's on the valid document: the family target. */
export const FAMILY_LIMIT = 2.5;
export const VALID_LIMIT = 1.1;

interface Family {
  name: string;
  text: string;
  expected: unknown;
}

const NONE: MalformedStyle = { bareKeys: 0, singleQuotes: 0, trailingCommas: 0, lineComments: 0, blockComments: 0, missingCommas: 0, pythonLiterals: false };

function spelled(value: Record<string, unknown>, style: Partial<MalformedStyle>): string {
  const emitter = new MalformedEmitter(createRandom(SEED ^ 0xfa111), { ...NONE, ...style });
  emitter.value(value, '');
  return emitter.text();
}

/** The document cut inside its last string, as a reply stopped mid-answer: the value up to the cut. */
function cut(value: Record<string, unknown>): Family {
  const summary = value.summary as string;
  const kept = Math.floor(summary.length * 0.6);
  const text = JSON.stringify(value, null, 2);
  const at = text.lastIndexOf(JSON.stringify(summary)) + 1 + kept;
  return { name: 'a cut (mid-string)', text: text.slice(0, at), expected: { ...value, summary: summary.slice(0, kept) } };
}

export function families(value: Record<string, unknown>): Family[] {
  const of = (name: string, style: Partial<MalformedStyle>): Family => ({ name, text: spelled(value, style), expected: value });
  return [
    of('unquoted keys', { bareKeys: 1 }),
    of('single quotes', { singleQuotes: 1 }),
    of('trailing commas', { trailingCommas: 1 }),
    of('Python literals', { pythonLiterals: true }),
    of('line comments', { lineComments: 1 }),
    of('block comments', { blockComments: 1 }),
    of('missing commas', { missingCommas: 1 }),
    cut(value),
    of('all JavaScript habits', { bareKeys: 1, singleQuotes: 1, trailingCommas: 1, lineComments: 0.5, blockComments: 0.5 }),
  ];
}

export interface FamilyRow {
  name: string;
  bytes: number;
  nsPerOp: number;
  /** Time over JSON.parse on the valid document. */
  ratio: number;
  limit: number;
  /** Why the repair's value is wrong, or null. */
  wrong: string | null;
}

/** Calls per block and the time for the whole table. */
const BLOCK_OPS = 2;
const BUDGET_MS = 12_000;

/** The families table: JSON.parse, our repair of the valid document and of each family, interleaved. */
export function measureFamilies(budgetMs = BUDGET_MS): FamilyRow[] {
  const value = generateDocument(1_500_000);
  const valid = JSON.stringify(value, null, 2);
  const rows = families(value);
  const fns = [() => JSON.parse(valid), () => repair(valid), ...rows.map((f) => () => repair(f.text))];
  const timed = pairedRatios(fns, BLOCK_OPS, budgetMs);
  const wrongOf = (text: string, expected: unknown): string | null => {
    const r = repair(text);
    if (!r.success) return 'repair failed';
    const at = firstDifference(r.repaired, expected);
    return at === null ? null : `wrong value at "${at}"`;
  };
  const all = [{ name: 'valid (no repair)', text: valid, expected: value }, ...rows];
  return all.map((f, k) => ({
    name: f.name,
    bytes: Buffer.byteLength(f.text),
    nsPerOp: timed.nsPerOp[k + 1]!,
    ratio: timed.ratio[k + 1]!,
    limit: k === 0 ? VALID_LIMIT : FAMILY_LIMIT,
    wrong: wrongOf(f.text, f.expected),
  })).concat([{ name: 'JSON.parse, valid', bytes: Buffer.byteLength(valid), nsPerOp: timed.nsPerOp[0]!, ratio: 1, limit: 1, wrong: null }]);
}

export function printFamilies(rows: readonly FamilyRow[]): boolean {
  printTable(
    ['family (~1.5 MB, broken throughout)', 'size', 'repair time', 'x JSON.parse (valid)', 'limit', 'result'],
    rows.map((r) => [r.name, formatBytes(r.bytes), formatDuration(r.nsPerOp), formatNumber(r.ratio), r.name.startsWith('JSON.parse') ? '' : `<= ${r.limit}x`,
      r.name.startsWith('JSON.parse') ? '' : r.wrong !== null ? `FAIL ${r.wrong}` : r.ratio <= r.limit ? 'pass' : 'FAIL']),
  );
  return rowsPass(rows);
}

/** Whether every row's repair is right and within its limit. */
export function rowsPass(rows: readonly FamilyRow[]): boolean {
  return rows.every((r) => r.wrong === null && r.ratio <= r.limit);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!printFamilies(measureFamilies())) process.exitCode = 1;
}

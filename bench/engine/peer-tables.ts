// The peers' own test tables (test/fixtures/peer-cases/) run through our engine: loading each table
// into one shape, and deciding for each case whether we agree with the peer. Used by `npm run peers`
// and test/engine/peer-tables.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repair } from '../../engine/index.js';
import { jsonEqual } from '../../support/json-equal.js';
import { classifyDifference } from './peer-differences.js';

// Compiled, this file runs from dist/bench/engine/; under tap it runs from bench/engine/ as TypeScript.
const ROOT = fileURLToPath(import.meta.url).includes('/dist/') ? new URL('../../../', import.meta.url) : new URL('../../', import.meta.url);
/** The peers' tables, kept in the repository with their licences (ATTRIBUTION.md there). */
export const PEER_CASES_DIR = fileURLToPath(new URL('test/fixtures/peer-cases/', ROOT));

/** What the peer gives for an input: a value, or nothing (it throws / gives up). */
export type PeerExpectation = { kind: 'value'; value: unknown } | { kind: 'fails' } | { kind: 'fails-or-empty-string' };

export interface PeerCase {
  input: string;
  expected: PeerExpectation;
  note: string;
}

export interface PeerTable {
  name: string;
  file: string;
  /** Tables given for information only carry no target. */
  target: number | null;
  cases: PeerCase[];
}

export type Ours = { success: true; value: unknown; repairs: string[] } | { success: false; errors: string[] };

/**
 * agree: same value, or both give up. we-repair: the peer gives up where we return a value.
 * we-fail: the peer returns a value where we give up. differ: both return values, not the same.
 * threw: our repair threw (always an engine bug: repair must never throw).
 */
export type Outcome = 'agree' | 'we-repair' | 'we-fail' | 'differ' | 'threw';

export interface CaseResult {
  table: string;
  note: string;
  input: string;
  expected: PeerExpectation;
  ours: Ours;
  outcome: Outcome;
  /** Id of the deliberate difference (peer-differences.ts) that explains a disagreement, if any. */
  deliberate: string | null;
}

export interface TableResult {
  table: PeerTable;
  results: CaseResult[];
  counts: Record<Outcome, number>;
  agreement: number;
}

const JSONREPAIR_FILE = 'jsonrepair-3.15.0.json';
const JSON_REPAIR_FILE = 'json_repair-py-0.61.7.json';
const ALL_OPTIONS_FILE = 'json_repair-py-0.61.7-all-options.json';

interface RawCase {
  input: string;
  expected: unknown;
  note?: string;
  source?: string;
  kind?: string;
  options?: Record<string, unknown>;
}

function readCases(dir: string, file: string): RawCase[] {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as RawCase[];
}

/** jsonrepair's table gives output text (compared as parsed values), null where jsonrepair throws. */
function jsonrepairExpectation(expected: unknown): PeerExpectation {
  if (expected === null) return { kind: 'fails' };
  return { kind: 'value', value: JSON.parse(expected as string) };
}

/**
 * Python json_repair returns "" when it finds nothing to repair, which cannot be told apart from a
 * real empty string value: either reading counts as agreement.
 */
function jsonRepairPyExpectation(expected: unknown): PeerExpectation {
  if (expected === '') return { kind: 'fails-or-empty-string' };
  return { kind: 'value', value: expected };
}

export function loadPeerTables(dir: string): PeerTable[] {
  const allOptions = readCases(dir, ALL_OPTIONS_FILE).filter(
    // Schema cases belong to the schema pass; strict mode is an option we do not have.
    (c) => c.kind === 'value' && c.options !== undefined && !('schema' in c.options) && !('strict' in c.options) && !('schema_repair_mode' in c.options),
  );
  return [
    {
      name: 'jsonrepair 3.15.0',
      file: JSONREPAIR_FILE,
      target: 0.9,
      cases: readCases(dir, JSONREPAIR_FILE).map((c) => ({ input: c.input, expected: jsonrepairExpectation(c.expected), note: c.note ?? '' })),
    },
    {
      name: 'json_repair (Python) 0.61.7',
      file: JSON_REPAIR_FILE,
      target: 0.75,
      cases: readCases(dir, JSON_REPAIR_FILE).map((c) => ({ input: c.input, expected: jsonRepairPyExpectation(c.expected), note: c.note ?? '' })),
    },
    {
      name: 'json_repair, all options, no schema',
      file: ALL_OPTIONS_FILE,
      target: null,
      cases: allOptions.map((c) => ({
        input: c.input,
        expected: jsonRepairPyExpectation(c.expected),
        note: `${c.source ?? ''} ${JSON.stringify(c.options)}`,
      })),
    },
  ];
}

export function runOurs(input: string): Ours | null {
  try {
    const response = repair(input);
    if (response.success) return { success: true, value: response.repaired, repairs: response.metadata.syntax_repairs.map((r) => r.type) };
    return { success: false, errors: response.metadata.errors.map((e) => e.code) };
  } catch {
    return null;
  }
}

function outcomeOf(expected: PeerExpectation, ours: Ours): Outcome {
  if (expected.kind === 'value') {
    if (!ours.success) return 'we-fail';
    return jsonEqual(ours.value, expected.value) ? 'agree' : 'differ';
  }
  if (!ours.success) return 'agree';
  return expected.kind === 'fails-or-empty-string' && ours.value === '' ? 'agree' : 'we-repair';
}

export function runTable(table: PeerTable): TableResult {
  const counts: Record<Outcome, number> = { agree: 0, 'we-repair': 0, 'we-fail': 0, differ: 0, threw: 0 };
  const results = table.cases.map((c): CaseResult => {
    const ours = runOurs(c.input);
    const outcome: Outcome = ours === null ? 'threw' : outcomeOf(c.expected, ours);
    counts[outcome]++;
    const settled: Ours = ours ?? { success: false, errors: ['THREW'] };
    const deliberate = outcome === 'agree' || outcome === 'threw' ? null : classifyDifference(c.input, c.expected, settled);
    return { table: table.name, note: c.note, input: c.input, expected: c.expected, ours: settled, outcome, deliberate };
  });
  return { table, results, counts, agreement: counts.agree / Math.max(1, table.cases.length) };
}

/** Agreement plus the disagreements a documented deliberate difference explains: what a target judges. */
export function agreeOrDeliberate({ results, table }: TableResult): number {
  return results.filter((r) => r.outcome === 'agree' || r.deliberate !== null).length / Math.max(1, table.cases.length);
}

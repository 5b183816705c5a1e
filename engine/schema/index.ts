// The schema pass: repairs a parsed value towards a JSON Schema, then validates it.
// repair() calls applySchema after the syntax pass; docs/schema.md describes the behaviour.
import { makeError } from '../error-codes.js';
import type { Mode, RepairDetail, RepairError, Warning } from '../types.js';
import { canonicalSchemaText, SchemaShapeError } from './canonical.js';
import { compileSchemaText, invalidSchema, type CompileResult } from './compile.js';
import { explainErrors } from './explain-error.js';
import type { RepairSink } from './repair-detail.js';
import { SchemaCache } from './schema-cache.js';
import { SchemaCycleError } from './schema-index.js';
import { UnsupportedPatternError } from './safe-pattern.js';
import { WalkEnv } from './walk-env.js';
import { walk } from './walker.js';

export interface SchemaOutcome {
  /** The value after coercion, removal and injection (may be the same object, mutated). */
  value: unknown;
  repairs: RepairDetail[];
  warnings: Warning[];
  /** Non-empty means the value does not conform (SCHEMA_VALIDATION_FAILED) or the schema is bad (INVALID_REQUEST). */
  errors: RepairError[];
}

const cache = new SchemaCache<CompileResult>();

/** Compiled form of a schema, from the cache when an equal schema was seen before. */
export function compiledSchema(schema: unknown): CompileResult {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return invalidSchema('a schema must be a JSON object or a boolean');
  }
  let text: string;
  try {
    text = canonicalSchemaText(schema);
  } catch (error) {
    // Not cached: the check stops at the limits, so repeating it costs little.
    if (error instanceof SchemaShapeError || error instanceof RangeError) return invalidSchema((error as Error).message);
    throw error;
  }
  let compiled = cache.get(text);
  if (compiled === undefined) {
    compiled = compileOrExplain(text);
    cache.set(text, compiled);
  }
  return compiled;
}

function compileOrExplain(text: string): CompileResult {
  try {
    return compileSchemaText(text);
  } catch (error) {
    if (error instanceof SchemaCycleError || error instanceof UnsupportedPatternError) return invalidSchema(error.message);
    throw error;
  }
}

/**
 * Repairs `value` towards `schema` and validates the result. `schema` undefined or null means no
 * schema: the value is returned untouched.
 */
export function applySchema(value: unknown, schema: unknown, mode: Mode): SchemaOutcome {
  if (schema === undefined || schema === null) return { value, repairs: [], warnings: [], errors: [] };
  const compiled = compiledSchema(schema);
  if (!compiled.ok) return { value, repairs: [], warnings: [], errors: [compiled.error] };
  const sink: RepairSink = { repairs: [], warnings: [] };
  const env = new WalkEnv(compiled.model, mode === 'lenient' ? 'lenient' : 'strict', compiled.validatorAt);
  let repaired: unknown = value;
  let errors: RepairError[] = [];
  try {
    repaired = walk(env, value, compiled.model.root, '', sink, false);
    if (!compiled.validate(repaired)) errors = explainErrors(compiled.validate.errors ?? [], repaired);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    errors = [makeError('SCHEMA_VALIDATION_FAILED',
      'The value is nested too deeply to be checked against this schema.', { field: '' })];
  }
  return { value: repaired, repairs: sink.repairs, warnings: sink.warnings, errors };
}

/** For tests and benchmarks: forget every compiled schema. */
export function clearSchemaCache(): void {
  cache.clear();
}

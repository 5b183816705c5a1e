// The schema pass: repairs a parsed value towards a JSON Schema, then validates it.
// repair() calls applySchema after the syntax pass; docs/schema.md describes the behaviour.
import { makeError, makeWarning } from '../error-codes.js';
import type { Mode, RepairDetail, RepairError, Warning } from '../types.js';
import { canonicalSchemaText, SchemaShapeError } from './canonical.js';
import { compileSchemaText, invalidSchema, type CompileResult } from './compile.js';
import { explainErrors } from './explain-error.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_TEXT, VALIDATION_BUDGET_BASE } from './limits.js';
import { newSink } from './repair-detail.js';
import { SchemaCache } from './schema-cache.js';
import { SchemaCycleError } from './schema-index.js';
import { UnsupportedPatternError } from './safe-pattern.js';
import { setValidationBudget, ValidationBudgetExceeded } from './validation-budget.js';
import { WalkEnv } from './walk-env.js';
import { walk } from './walker.js';

import { warmUpMetaValidators } from './compile.js';

export interface SchemaOutcome {
  /** The value after coercion, removal and injection (may be the same object, mutated). */
  value: unknown;
  repairs: RepairDetail[];
  warnings: Warning[];
  /** Non-empty means the value does not conform (SCHEMA_VALIDATION_FAILED) or the schema is bad (INVALID_REQUEST). */
  errors: RepairError[];
}

const cache = new SchemaCache<CompileResult>();
/**
 * The same schema object passed again (a caller's constant) skips even the text key, as ajv's own
 * compile cache does: a schema object is read once, so a caller that changes one passes a new object.
 */
let byObject = new WeakMap<object, CompileResult>();
/** What each cached compile cost, in ms: a server uses it to decide where a schema may be compiled again. */
const compileCosts = new WeakMap<CompileResult, number>();
/** The compile cost of the schema the last compiledSchema() call returned (see takeSchemaCompileMs). */
let lastCompileMs: number | undefined;

/**
 * Compiled form of a schema, from the cache when the same object or an equal schema was seen
 * before. Besides the object itself, the cache is keyed twice: by the schema's text as given (one
 * native JSON.stringify: the cheap lookup for a client that repeats its schema verbatim) and by its
 * canonical text (sorted keys: reordered but equal schemas share one compile). Both keys lead to
 * the same entry.
 */
export function compiledSchema(schema: unknown): CompileResult {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return invalidSchema('a schema must be a JSON object or a boolean');
  }
  if (typeof schema === 'boolean') return compiledByText(schema);
  const seen = byObject.get(schema);
  if (seen !== undefined) {
    lastCompileMs = compileCosts.get(seen);
    return seen;
  }
  const compiled = compiledByText(schema);
  byObject.set(schema, compiled);
  return compiled;
}

function compiledByText(schema: object | boolean): CompileResult {
  let raw: string | undefined;
  try {
    raw = JSON.stringify(schema);
  } catch (error) {
    // A cycle (TypeError), a BigInt (TypeError) or nesting past V8's own limit (RangeError).
    return invalidSchema(error instanceof RangeError ? `schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
      : 'schema is not JSON: ' + (error as Error).message.split('\n')[0]);
  }
  if (raw.length > MAX_SCHEMA_TEXT) return invalidSchema(`schema is larger than ${MAX_SCHEMA_TEXT} characters`);
  const known = cache.get(raw);
  if (known !== undefined) {
    lastCompileMs = compileCosts.get(known);
    return known;
  }
  let text: string;
  try {
    text = canonicalSchemaText(schema);
  } catch (error) {
    // Not cached: the check stops at the limits, so repeating it costs little.
    if (error instanceof SchemaShapeError) return invalidSchema(error.message);
    throw error;
  }
  let compiled = cache.get(text);
  if (compiled === undefined) {
    const started = performance.now();
    compiled = compileOrExplain(text);
    compileCosts.set(compiled, performance.now() - started);
    cache.set(text, compiled);
  }
  if (raw !== text) cache.set(raw, compiled);
  lastCompileMs = compileCosts.get(compiled);
  return compiled;
}

/**
 * Whether `schemaText` (the schema's JSON.stringify text, as a client repeats it) is compiled in
 * this thread's cache, so a repair with it costs no compile. Never compiles. When it is and
 * `schema` (the object that text was made from) is given, the object is bound to that entry: the
 * server has serialized a request's schema once to ask, and the repair then finds it without
 * serializing it again.
 */
export function isSchemaTextCompiled(schemaText: string, schema?: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return cache.has(schemaText);
  const entry = cache.get(schemaText);
  if (entry === undefined) return false;
  byObject.set(schema, entry);
  return true;
}

/**
 * What compiling the schema of the last repair cost in this thread (ms, measured when it was first
 * compiled, so a cache hit reports the original cost), then forgets it; undefined when the last
 * repair had no schema or its schema was rejected before compiling.
 */
export function takeSchemaCompileMs(): number | undefined {
  const ms = lastCompileMs;
  lastCompileMs = undefined;
  return ms;
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
  if (schema === undefined || schema === null) return untouched(value);
  const compiled = compiledSchema(schema);
  if (!compiled.ok) return { value, repairs: [], warnings: [], errors: [compiled.error] };
  // A value the closed twin accepts is a fixed point of the walk (closed-schema.ts says why).
  if (compiled.unchangedIfValid !== null && compiled.unchangedIfValid(value)) return untouched(value);
  const sink = newSink();
  const env = new WalkEnv(compiled.model, mode === 'lenient' ? 'lenient' : 'strict', compiled.validatorAt);
  let repaired: unknown = value;
  let errors: RepairError[] = [];
  setValidationBudget(VALIDATION_BUDGET_BASE);
  try {
    repaired = walk(env, value, compiled.model.root, '', sink, false, 0);
    const valid = compiled.validate(repaired);
    if (env.exhaustedAt !== null) {
      // Values past the budget were left unrepaired: their failing proves nothing about the data.
      const at = env.exhaustedAt;
      if (valid) sink.warnings.push(makeWarning('SCHEMA_WORK_LIMIT_REACHED', undefined, { field: at }));
      else errors = [makeError('SCHEMA_WORK_LIMIT_EXCEEDED', workLimitMessage(at), { field: at })];
    } else if (!valid) errors = explainErrors(sink.failures, compiled.validate.errors ?? [], repaired);
  } catch (error) {
    if (error instanceof ValidationBudgetExceeded) {
      errors = [invalidSchema('checking a value against it repeats work without bound (for example several ' +
        'anyOf branches that recurse through the same $ref); make the branches exclusive').error];
    } else if (error instanceof RangeError) {
      errors = [makeError('SCHEMA_VALIDATION_FAILED',
        'The value is nested too deeply to be checked against this schema.', { field: '' })];
    } else {
      throw error;
    }
  }
  return { value: repaired, repairs: sink.repairs, warnings: sink.warnings, errors };
}

/** The outcome of a value the schema pass leaves as it is: no repairs, nothing to report. */
function untouched(value: unknown): SchemaOutcome {
  return { value, repairs: [], warnings: [], errors: [] };
}

function workLimitMessage(field: string): string {
  return `The schema pass reached its work limit choosing an anyOf/oneOf branch at "${field}" ` +
    '(trial repairs under each branch); from there values were not repaired, and the result does not ' +
    'match the schema as it stands. Whether the input can be repaired to match is unknown.';
}

/**
 * Compiles the meta-schemas (about 40 ms each) and one ordinary schema, then forgets the latter, so
 * the first client schema in this thread costs what it will cost afterwards: without it the first
 * compile took 7 ms cold against 1.5–3 ms warm, plus the meta-schema of its draft.
 */
export function warmUpSchemaCompiler(): void {
  warmUpMetaValidators();
  const sample = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } },
      kind: { enum: ['a', 'b'] }, extra: { anyOf: [{ type: 'number' }, { type: 'null' }] } },
    required: ['id'],
    additionalProperties: false,
  };
  const compiled = compiledSchema(sample);
  if (compiled.ok) applySchema({ id: '1', name: 'x', tags: ['t'], kind: 'A', extra: null }, sample, 'strict');
  clearSchemaCache();
  lastCompileMs = undefined;
}

/** For tests and benchmarks: forget every compiled schema. */
export function clearSchemaCache(): void {
  cache.clear();
  byObject = new WeakMap();
}

/** For tests: how many keys the compile cache holds. */
export function schemaCacheSize(): number {
  return cache.size;
}

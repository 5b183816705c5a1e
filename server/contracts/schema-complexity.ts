// The complexity budget a request's schema must fit before anything compiles it. Compiling costs
// more than the schema's size suggests: ajv generates code per subschema, and the schema pass
// prepares each anyOf/oneOf branch (800 branches, 150 KB: seconds of one thread). A schema over the
// budget is refused up front with SCHEMA_TOO_COMPLEX, in both contracts, batch and streaming alike,
// so no worker spends its deadline on it. One pass over the parsed schema, with an explicit stack:
// linear in its size, whatever its depth. docs/schema.md lists the limits.
import type { RepairError } from '../../engine/types.js';
import { MAX_SCHEMA_DEPTH } from '../../engine/schema/limits.js';
import { makeError } from './error-codes.js';

/** anyOf/oneOf members in the whole schema (each is prepared and may be tried per value). */
export const MAX_SCHEMA_UNION_MEMBERS = 128;
/** JSON objects and arrays in the schema document (about one per subschema, property and definition). */
export const MAX_SCHEMA_CONTAINERS = 2_000;
/** Members of any one object (`properties`, `$defs`, …). */
export const MAX_SCHEMA_MEMBERS = 500;

const SUGGESTION = 'Split the schema (one request per record type), or give the value fewer alternatives; the limits are in docs/schema.md.';

function tooComplex(message: string, field?: string): RepairError {
  return makeError('SCHEMA_TOO_COMPLEX', message, field === undefined ? { suggestion: SUGGESTION } : { suggestion: SUGGESTION, field });
}

/**
 * null when `schema` fits the budget; else the refusal. Not a validity check: compiling does that,
 * and so a schema nested past the engine's depth limit is left to its INVALID_REQUEST.
 */
export function schemaComplexityError(schema: unknown): RepairError | null {
  if (typeof schema !== 'object' || schema === null) return null;
  let containers = 0;
  let unionMembers = 0;
  // Values with the JSON Pointer of the object holding them, for the error's field.
  const stack: unknown[] = [schema];
  const paths: string[] = [''];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const value = stack.pop();
    const path = paths.pop()!;
    const depth = depths.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_SCHEMA_DEPTH) return null;
    if (++containers > MAX_SCHEMA_CONTAINERS) return tooComplex(`The schema holds more than ${MAX_SCHEMA_CONTAINERS} objects and arrays (subschemas, properties, definitions).`);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (typeof value[i] === 'object' && value[i] !== null) {
          stack.push(value[i]);
          paths.push(`${path}/${i}`);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_SCHEMA_MEMBERS) return tooComplex(`An object of the schema has ${keys.length} members; the limit is ${MAX_SCHEMA_MEMBERS}.`, path);
    for (const key of keys) {
      const member = (value as Record<string, unknown>)[key];
      if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(member)) {
        unionMembers += member.length;
        if (unionMembers > MAX_SCHEMA_UNION_MEMBERS) {
          return tooComplex(`The schema has more than ${MAX_SCHEMA_UNION_MEMBERS} anyOf/oneOf members in all.`, `${path}/${key}`);
        }
      }
      if (typeof member === 'object' && member !== null) {
        stack.push(member);
        paths.push(`${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}

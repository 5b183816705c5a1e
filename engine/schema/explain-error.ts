// SCHEMA_VALIDATION_FAILED errors, each one sentence naming the field (a JSON Pointer into the
// value; "The value" for the root) and what the schema expected, from the walk's own findings and
// from ajv's errors.
// The branch-by-branch errors of a failed anyOf/oneOf are folded into one sentence about the union.
import type { ErrorObject } from 'ajv';
import { makeError } from '../error-codes.js';
import type { RepairError } from '../types.js';
import { escapeToken, valueAt } from './json-pointer.js';
import { MAX_QUOTED_VALUE, MAX_REPORTED_ERRORS } from './limits.js';
import { T_ARRAY, T_BOOLEAN, T_INTEGER, T_NULL, T_NUMBER, T_OBJECT, T_STRING, typeNameOf } from './type-mask.js';

type Params = Record<string, unknown>;

/**
 * The failures the walk was sure of, then ajv's (it stops at its first violation) unless it names
 * one of those again; at most MAX_REPORTED_ERRORS, then a count of the rest.
 */
export function explainErrors(walkFailures: readonly RepairError[], errors: readonly ErrorObject[], value: unknown): RepairError[] {
  const all = walkFailures.slice();
  for (const error of foldUnionErrors(errors)) {
    const explained = explainError(error, value);
    const repeated = all.some((f) => f.field === explained.field && f.compact_code === explained.compact_code);
    if (!repeated) all.push(explained);
  }
  if (all.length <= MAX_REPORTED_ERRORS) return all;
  const shown = all.slice(0, MAX_REPORTED_ERRORS);
  shown.push(makeError('SCHEMA_VALIDATION_FAILED', `${all.length - MAX_REPORTED_ERRORS} more schema violations are not listed.`));
  return shown;
}

export function typeFailure(field: string, allowed: number, value: unknown): RepairError {
  return failure(`${subjectOf(field)} must be ${typeList(namesOfMask(allowed))}, but it is ${describeValue(value)}.`,
    field, 'TYPE_COERCION_FAILED');
}

export function requiredFailure(field: string): RepairError {
  return failure(`Required field "${field}" is missing.`, field, 'MISSING_REQUIRED_FIELD');
}

function subjectOf(field: string): string {
  return field === '' ? 'The value' : `Field "${field}"`;
}

function namesOfMask(mask: number): string[] {
  const names: string[] = [];
  if (mask & T_OBJECT) names.push('object');
  if (mask & T_ARRAY) names.push('array');
  if (mask & T_STRING) names.push('string');
  if (mask & T_NUMBER) names.push('number');
  else if (mask & T_INTEGER) names.push('integer');
  if (mask & T_BOOLEAN) names.push('boolean');
  if (mask & T_NULL) names.push('null');
  return names;
}

// ajv reports a failed union's branch errors as one contiguous block right before the union's own
// error. The block is recognised by position: trailing errors at or under the union's field, up to
// the first error from a sibling keyword of the same schema object (evaluated before the union).
// Branch errors cannot be told apart by schema path: a $ref'd branch reports paths of its target.
function foldUnionErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const kept: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue; // its then/else errors say more
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const path = error.instancePath;
      const owner = error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/') + 1);
      while (kept.length > 0) {
        const last = kept[kept.length - 1]!;
        if (last.instancePath !== path && !last.instancePath.startsWith(path + '/')) break;
        const sibling = last.instancePath === path && last.schemaPath.startsWith(owner)
          && last.schemaPath.indexOf('/', owner.length) === -1;
        if (sibling) break;
        kept.pop();
      }
    }
    kept.push(error);
  }
  return kept;
}

export function explainError(error: ErrorObject, value: unknown): RepairError {
  const params = error.params as Params;
  const path = error.instancePath;
  const actual = valueAt(value, path);
  const subject = subjectOf(path);
  const it = describeValue(actual);
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies': {
      const field = path + '/' + escapeToken(String(params.missingProperty));
      if (params.property === undefined) return requiredFailure(field);
      const when = `${path}/${escapeToken(String(params.property))}`;
      return failure(`Required field "${field}" is missing (it is required when "${when}" is present).`, field, 'MISSING_REQUIRED_FIELD');
    }
    case 'type':
      return failure(`${subject} must be ${typeList(params.type)}, but it is ${it}.`, path, 'TYPE_COERCION_FAILED');
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const field = path + '/' + escapeToken(name);
      return failure(`Field "${field}" is not allowed by the schema (${error.keyword} is false).`, field);
    }
    case 'enum':
      return failure(`${subject} must be one of ${listValues(params.allowedValues)}, but it is ${it}.`, path);
    case 'const':
      return failure(`${subject} must equal ${quote(params.allowedValue)}, but it is ${it}.`, path);
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      return failure(`${subject} must be ${String(params.comparison)} ${String(params.limit)}, but it is ${it}.`, path);
    case 'multipleOf':
      return failure(`${subject} must be a multiple of ${String(params.multipleOf)}, but it is ${it}.`, path);
    case 'minLength': case 'maxLength':
      return failure(`${subject} must be ${bound(error.keyword, params.limit)} ${plural(params.limit, 'character')} long, ` +
        `but it has ${typeof actual === 'string' ? [...actual].length : '?'}.`, path);
    case 'minItems': case 'maxItems': case 'additionalItems': case 'items':
      if (params.limit === undefined) break;
      return failure(`${subject} must have ${bound(error.keyword.startsWith('min') ? 'min' : 'max', params.limit)} ` +
        `${plural(params.limit, 'item')}, but it has ${Array.isArray(actual) ? actual.length : '?'}.`, path);
    case 'minProperties': case 'maxProperties':
      return failure(`${subject} must have ${bound(error.keyword, params.limit)} ${plural(params.limit, 'field')}, ` +
        `but it has ${actual !== null && typeof actual === 'object' ? Object.keys(actual).length : '?'}.`, path);
    case 'pattern':
      return failure(`${subject} must match the pattern ${quote(params.pattern)}, but it is ${it}.`, path);
    case 'format':
      return failure(`${subject} must be a valid ${String(params.format)}, but it is ${it}.`, path);
    case 'uniqueItems':
      return failure(`${subject} must not contain duplicate items, but items ${String(params.j)} and ${String(params.i)} are equal.`, path);
    case 'anyOf':
      return failure(`${subject} does not match any of the alternatives in anyOf (it is ${it}).`, path);
    case 'oneOf': {
      const passing = params.passingSchemas;
      const why = Array.isArray(passing) ? `it matches alternatives ${passing.join(' and ')}` : `it matches none (it is ${it})`;
      return failure(`${subject} must match exactly one of the alternatives in oneOf, but ${why}.`, path);
    }
    case 'not':
      return failure(`${subject} must not match the schema under "not", but it does (it is ${it}).`, path);
    case 'false schema':
      return failure(`${subject} is not allowed here (its schema is false).`, path);
    case 'contains': case 'minContains': case 'maxContains':
      return failure(`${subject} must contain ${params.maxContains !== undefined ? 'at most ' + String(params.maxContains)
        : 'at least ' + String(params.minContains ?? 1)} matching ${plural(params.minContains ?? params.maxContains ?? 1, 'item')}.`, path);
    case 'propertyNames':
      return failure(`${subject} has a field name ${quote(params.propertyName)} that propertyNames does not allow.`, path);
    default:
      break;
  }
  return failure(`${subject} ${error.message ?? 'does not match the schema'} (${error.keyword}).`, path);
}

function failure(sentence: string, field: string, compactCode?: string): RepairError {
  return makeError('SCHEMA_VALIDATION_FAILED', sentence,
    compactCode === undefined ? { field } : { field, compact_code: compactCode });
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer', object: 'an object', array: 'an array', string: 'a string',
  number: 'a number', boolean: 'a boolean', null: 'null',
};

function typeList(type: unknown): string {
  const names = Array.isArray(type) ? type.map(String) : String(type).split(',');
  if (names.length === 0) return 'nothing (the schema allows no type here)';
  const words = names.map((name) => ARTICLE[name] ?? name);
  return words.length <= 1 ? words.join('') : words.slice(0, -1).join(', ') + ' or ' + words[words.length - 1];
}

function bound(keyword: string, limit: unknown): string {
  return (keyword.startsWith('min') ? 'at least ' : 'at most ') + String(limit);
}

function plural(count: unknown, noun: string): string {
  return count === 1 ? noun : noun + 's';
}

function quote(value: unknown): string {
  if (typeof value === 'string' && value.length > MAX_QUOTED_VALUE) return JSON.stringify(value.slice(0, MAX_QUOTED_VALUE) + '…');
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_QUOTED_VALUE ? text.slice(0, MAX_QUOTED_VALUE) + '…' : text;
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return quote(values);
  const shown = values.slice(0, 10).map(quote).join(', ');
  return values.length > 10 ? `${shown}, … (${values.length} in all)` : shown;
}

export function describeValue(value: unknown): string {
  const type = typeNameOf(value);
  switch (type) {
    case 'null': return 'null';
    case 'boolean': return String(value);
    case 'array': {
      const count = (value as unknown[]).length;
      return `an array of ${count} ${plural(count, 'item')}`;
    }
    case 'object': return 'an object';
    case 'integer': return `the integer ${String(value)}`;
    case 'number': return `the number ${String(value)}`;
    case 'string': return `the string ${quote(value)}`;
    default: return 'missing';
  }
}

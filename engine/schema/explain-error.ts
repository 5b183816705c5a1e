// Turns ajv's validation errors into SCHEMA_VALIDATION_FAILED errors, each one sentence naming the
// field (a JSON Pointer into the value; "The value" for the root) and what the schema expected.
// The branch-by-branch errors of a failed anyOf/oneOf are folded into one sentence about the union.
import type { ErrorObject } from 'ajv';
import { makeError } from '../error-codes.js';
import type { RepairError } from '../types.js';
import { escapeToken, valueAt } from './json-pointer.js';
import { MAX_QUOTED_VALUE, MAX_REPORTED_ERRORS } from './limits.js';
import { typeNameOf } from './type-mask.js';

type Params = Record<string, unknown>;

export function explainErrors(errors: readonly ErrorObject[], value: unknown): RepairError[] {
  const kept = foldUnionErrors(errors);
  const out: RepairError[] = [];
  for (const error of kept) {
    if (out.length === MAX_REPORTED_ERRORS) {
      out.push(makeError('SCHEMA_VALIDATION_FAILED',
        `${kept.length - MAX_REPORTED_ERRORS} more schema violations are not listed.`));
      break;
    }
    out.push(explainError(error, value));
  }
  return out;
}

function foldUnionErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const kept: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue; // its then/else errors say more
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const branchPrefix = error.schemaPath + '/';
      const ownerPrefix = error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/') + 1);
      while (kept.length > 0) {
        const last = kept[kept.length - 1]!;
        const inside = last.instancePath === error.instancePath || last.instancePath.startsWith(error.instancePath + '/');
        // Branch errors sit under the union's schema path, or elsewhere entirely when a branch is a $ref.
        const fromBranch = last.schemaPath.startsWith(branchPrefix) || !last.schemaPath.startsWith(ownerPrefix);
        if (!inside || !fromBranch) break;
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
  const subject = path === '' ? 'The value' : `Field "${path}"`;
  const it = describeValue(actual);
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies': {
      const field = path + '/' + escapeToken(String(params.missingProperty));
      const when = params.property === undefined ? '' : ` when "${path}/${escapeToken(String(params.property))}" is present`;
      return failure(`Required field "${field}" is missing${when}.`, field, 'MISSING_REQUIRED_FIELD');
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

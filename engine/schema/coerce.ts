// Type coercions judged safe (docs/schema.md lists each). A coercion happens only when the value's
// type is not allowed and exactly one allowed type can take it without guessing.
import { T_ARRAY, T_BOOLEAN, T_INTEGER, T_NUMBER, T_OBJECT, T_STRING, typeBitOf } from './type-mask.js';

export const NOT_COERCIBLE: unique symbol = Symbol('not coercible');
export type Coerced = unknown | typeof NOT_COERCIBLE;

// JSON's own number grammar (no leading zeros, no "+", no hex, no "1,000").
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** `target` is a type mask the value's own type is not part of. */
export function coerce(value: unknown, target: number): Coerced {
  let result: Coerced = NOT_COERCIBLE;
  switch (typeof value) {
    case 'string': result = coerceString(value, target); break;
    case 'number':
      // An integer beyond ±2^53−1 (a tracking number, a 64-bit id) already lost digits when it was
      // parsed: its text is unknown here, so it is not coerced (as "12345678901234567890" is not).
      if ((target & T_STRING) !== 0 && !(Number.isInteger(value) && !Number.isSafeInteger(value))) result = String(value);
      break;
    case 'boolean':
      if ((target & T_STRING) !== 0) result = String(value);
      break;
    default: break;
  }
  // A lone value where an array is wanted becomes its only element, when nothing else applies.
  if (result === NOT_COERCIBLE && (target & T_ARRAY) !== 0 && value !== null && !Array.isArray(value)) {
    result = [value];
  }
  // A one-element array where its item is wanted (`"name": ["Ada"]`) becomes that item.
  if (result === NOT_COERCIBLE && Array.isArray(value) && value.length === 1 && (target & T_ARRAY) === 0) {
    const item: unknown = value[0];
    if (item !== null && typeof item !== 'object') {
      result = (typeBitOf(item) & target) !== 0 ? item : coerce(item, target);
    } else if (item !== null && !Array.isArray(item) && (target & T_OBJECT) !== 0) result = item;
  }
  return result;
}

function coerceString(text: string, target: number): Coerced {
  if ((target & (T_NUMBER | T_INTEGER)) !== 0) {
    const n = parseJsonNumber(text) ?? parseFormattedNumber(text);
    if (n !== undefined && (target & typeBitOf(n)) !== 0) return n;
  }
  if ((target & T_BOOLEAN) !== 0) {
    const word = text.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
  }
  if ((target & (T_OBJECT | T_ARRAY)) !== 0) {
    const parsed = parseJsonContainer(text);
    if (parsed !== undefined && (target & typeBitOf(parsed)) !== 0) return parsed;
  }
  return NOT_COERCIBLE;
}

/** The number a string spells in JSON syntax (surrounding whitespace allowed), if it keeps every digit. */
export function parseJsonNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 400 || !JSON_NUMBER.test(trimmed)) return undefined;
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return undefined;
  // Integers past 2^53 would silently lose digits (an id "12345678901234567890" is not 12345678901234567000).
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return undefined;
  return n;
}

// A number as people write it: a currency sign before it, commas between groups of three digits
// (`$1,000.50`, `12,111`, `-€5`). `1,5` (a decimal comma) and `1,00` are not groups: not numbers.
const FORMATTED_NUMBER = /^([-+]?)\s*([$€£¥]?)\s*(-?)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)$/;

/** The number in a string written with a currency sign or thousands separators, if it keeps every digit. */
export function parseFormattedNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed.length > 400) return undefined;
  const match = FORMATTED_NUMBER.exec(trimmed);
  if (match === null || (match[1] !== '' && match[3] !== '')) return undefined;
  const digits = match[4]!;
  if (match[2] === '' && digits.indexOf(',') < 0) return undefined; // neither sign nor separator: JSON's grammar decides
  const negative = match[1] === '-' || match[3] === '-';
  return parseJsonNumber((negative ? '-' : '') + digits.replace(/,/g, ''));
}

/** An object or array written as JSON text inside a string (a model that stringified a nested value). */
function parseJsonContainer(text: string): unknown {
  const trimmed = text.trim();
  const first = trimmed.charCodeAt(0);
  if (first !== 0x7b /* { */ && first !== 0x5b /* [ */) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

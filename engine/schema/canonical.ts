// Canonical JSON text with object keys sorted, used as the compile-cache key (so equal schemas whose
// keys arrive in another order share one compiled validator) and as the identity of a value in
// uniqueItems. Schema text is limited in depth and size while it is written, which also stops
// cyclic or exponentially shared objects handed in by in-process callers.
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_TEXT } from './limits.js';

const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  return NEEDS_JSON_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

export class SchemaShapeError extends Error {}

function describe(value: unknown): string {
  if (typeof value === 'number') return 'a number that is not finite';
  if (typeof value === 'object' && value !== null) return `a ${value.constructor?.name ?? 'non-plain'} object`;
  return `a ${typeof value}`;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Canonical text of a schema; throws SchemaShapeError when it is not JSON or exceeds the limits. */
export function canonicalSchemaText(schema: unknown): string {
  return write(schema, 0);
}

// Recursion is bounded by MAX_SCHEMA_DEPTH, a constant, not by the input.
function write(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string': return quote(value);
    case 'boolean': return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new SchemaShapeError(`schema contains ${describe(value)}`);
      return '' + value;
    case 'object': break;
    default: throw new SchemaShapeError(`schema contains ${describe(value)}`);
  }
  if (value === null) return 'null';
  if (depth >= MAX_SCHEMA_DEPTH) {
    throw new SchemaShapeError(`schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += write(value[i], depth + 1);
      if (text.length > MAX_SCHEMA_TEXT) throw tooLarge();
    }
    return text + ']';
  }
  if (!isPlainObject(value)) throw new SchemaShapeError(`schema contains ${describe(value)}`);
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += quote(key) + ':' + write(member, depth + 1);
    if (text.length > MAX_SCHEMA_TEXT) throw tooLarge();
  }
  return text + '}';
}

function tooLarge(): SchemaShapeError {
  return new SchemaShapeError(`schema is larger than ${MAX_SCHEMA_TEXT} characters`);
}

const OPEN_ARRAY = 0;
const OPEN_OBJECT = 1;

/**
 * Canonical text of a parsed JSON value of any depth (explicit stack: the value's depth is the
 * input's to choose). Two values are equal in the JSON Schema sense exactly when their texts are.
 */
export function stableValueText(root: unknown): string {
  let out = '';
  // Each frame: [container, kind, sorted keys or null, next index].
  const containers: unknown[] = [];
  const kinds: number[] = [];
  const keyLists: (string[] | null)[] = [];
  const indexes: number[] = [];
  let value: unknown = root;
  for (;;) {
    // Emit `value` (scalar) or open it (container).
    if (value === null || typeof value !== 'object') {
      out += typeof value === 'string' ? quote(value) : JSON.stringify(value ?? null);
    } else if (Array.isArray(value)) {
      out += '[';
      containers.push(value); kinds.push(OPEN_ARRAY); keyLists.push(null); indexes.push(0);
    } else {
      out += '{';
      const keys = Object.keys(value);
      if (keys.length > 1) keys.sort();
      containers.push(value); kinds.push(OPEN_OBJECT); keyLists.push(keys); indexes.push(0);
    }
    // Find the next value to emit, closing finished containers.
    for (;;) {
      const top = containers.length - 1;
      if (top < 0) return out;
      const i = indexes[top]!;
      if (kinds[top] === OPEN_ARRAY) {
        const array = containers[top] as unknown[];
        if (i < array.length) {
          if (i > 0) out += ',';
          indexes[top] = i + 1;
          value = array[i];
          break;
        }
        out += ']';
      } else {
        const keys = keyLists[top]!;
        if (i < keys.length) {
          if (i > 0) out += ',';
          indexes[top] = i + 1;
          out += quote(keys[i]!) + ':';
          value = (containers[top] as Record<string, unknown>)[keys[i]!];
          break;
        }
        out += '}';
      }
      containers.pop(); kinds.pop(); keyLists.pop(); indexes.pop();
    }
  }
}

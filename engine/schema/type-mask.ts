// JSON Schema types as bits, so "which types does this value/schema allow" is one AND.
// `number` includes integers, so its mask carries both bits; an integer value carries INTEGER only.

export const T_NULL = 1;
export const T_BOOLEAN = 2;
export const T_OBJECT = 4;
export const T_ARRAY = 8;
export const T_INTEGER = 16;
export const T_NUMBER = 32;
export const T_STRING = 64;
export const T_ANY = 127;

const BY_NAME: Record<string, number> = {
  null: T_NULL,
  boolean: T_BOOLEAN,
  object: T_OBJECT,
  array: T_ARRAY,
  integer: T_INTEGER,
  number: T_NUMBER | T_INTEGER,
  string: T_STRING,
};

/** Mask of a `type` keyword value (a name or a list of names); unknown names allow nothing. */
export function maskOfTypeKeyword(type: unknown): number {
  if (typeof type === 'string') return Object.hasOwn(BY_NAME, type) ? BY_NAME[type]! : 0;
  if (!Array.isArray(type)) return T_ANY;
  let mask = 0;
  for (const name of type) if (typeof name === 'string' && Object.hasOwn(BY_NAME, name)) mask |= BY_NAME[name]!;
  return mask;
}

export function typeBitOf(value: unknown): number {
  switch (typeof value) {
    case 'string': return T_STRING;
    case 'number': return Number.isInteger(value) ? T_INTEGER : T_NUMBER;
    case 'boolean': return T_BOOLEAN;
    case 'object':
      if (value === null) return T_NULL;
      return Array.isArray(value) ? T_ARRAY : T_OBJECT;
    default: return 0;
  }
}

/** For messages: the JSON Schema name of a value's type. */
export function typeNameOf(value: unknown): string {
  switch (typeBitOf(value)) {
    case T_STRING: return 'string';
    case T_INTEGER: return 'integer';
    case T_NUMBER: return 'number';
    case T_BOOLEAN: return 'boolean';
    case T_NULL: return 'null';
    case T_ARRAY: return 'array';
    case T_OBJECT: return 'object';
    default: return typeof value;
  }
}

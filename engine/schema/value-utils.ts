// Mutation helpers for values that came from untrusted text. Keys such as `__proto__` can be own
// members of a parsed object; plain assignment of a *new* `__proto__` member would set the prototype.

/** Sets a member without ever touching a prototype: `__proto__` in input is plain data (the scanner and the schema walk). */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function isPlainObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value of any depth (explicit stack), preserving own `__proto__` members. */
export function cloneJson<T>(source: T): T {
  if (source === null || typeof source !== 'object') return source;
  const rootCopy: unknown = Array.isArray(source) ? new Array(source.length) : {};
  const from: object[] = [source as object];
  const to: object[] = [rootCopy as object];
  while (from.length > 0) {
    const original = from.pop()!;
    const copy = to.pop()!;
    if (Array.isArray(original)) {
      const out = copy as unknown[];
      for (let i = 0; i < original.length; i++) out[i] = copyOne(original[i], from, to);
    } else {
      const record = original as Record<string, unknown>;
      const out = copy as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = 0; i < keys.length; i++) setMember(out, keys[i]!, copyOne(record[keys[i]!], from, to));
    }
  }
  return rootCopy as T;
}

function copyOne(value: unknown, from: object[], to: object[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  const copy: object = Array.isArray(value) ? new Array(value.length) : {};
  from.push(value);
  to.push(copy);
  return copy;
}

/** How many values `source` holds, itself included (explicit stack: any depth). */
export function countValues(source: unknown): number {
  let count = 0;
  const stack: unknown[] = [source];
  while (stack.length > 0) {
    const value = stack.pop();
    count++;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) stack.push(value[i]);
    else for (const key of Object.keys(value)) stack.push((value as Record<string, unknown>)[key]);
  }
  return count;
}

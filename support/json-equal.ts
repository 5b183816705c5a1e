// Equality of JSON values as JSON sees them: numbers by value (so -0 equals 0, as it does once
// serialized), object members regardless of order, arrays in order. Iterative, so a value nested a
// million levels deep (the engine must produce those) cannot overflow the stack while comparing.

type Pair = [unknown, unknown, string];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON Pointer of the first place where `a` and `b` differ, or null when they are equal. */
export function firstDifference(a: unknown, b: unknown): string | null {
  const stack: Pair[] = [[a, b, '']];
  while (stack.length > 0) {
    const [x, y, path] = stack.pop()!;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return path;
      for (let i = x.length - 1; i >= 0; i--) stack.push([x[i], y[i], `${path}/${i}`]);
      continue;
    }
    if (isPlainObject(x)) {
      if (!isPlainObject(y)) return path;
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return path;
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (!Object.prototype.hasOwnProperty.call(y, key)) return `${path}/${escapePointer(key)}`;
        stack.push([x[key], y[key], `${path}/${escapePointer(key)}`]);
      }
      continue;
    }
    return path; // different primitives, or a primitive against a container
  }
  return null;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  return firstDifference(a, b) === null;
}

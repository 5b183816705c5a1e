// JSON Pointer (RFC 6901) helpers: the `field` of schema repairs and errors is a pointer into the value.

export function escapeToken(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

export function unescapeToken(token: string): string {
  return token.indexOf('~') === -1 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function childPointer(parent: string, key: string | number): string {
  return typeof key === 'number' ? parent + '/' + key : parent + '/' + escapeToken(key);
}

/** The value at `pointer` inside `root` (own members only), or undefined when there is none. */
export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  const tokens = pointer.split('/');
  let node: unknown = root;
  for (let i = 1; i < tokens.length; i++) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = unescapeToken(tokens[i]!);
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

// Applies a patch preview (docs/streaming.md "Preview modes"): JSON Patch (RFC 6902) `add` and
// `replace`, plus `append`, which adds text to the end of the string at `path`. The service sends a
// container once, in the push that first shows it, and only its new members afterwards, so a client
// that applies every state's `partial_patch` in order holds the progressive preview at each step.
// Hand-written: the three operations are a dozen lines, and a general JSON Patch library has none
// for `append`.
import type { PatchOperation } from '../engine/types.js';

/** Applies `ops` in order to `doc` (mutated in place where it is a container); returns the new document. */
export function applyPatch(doc: unknown, ops: readonly PatchOperation[]): unknown {
  for (const op of ops) {
    if (op.path === '') {
      doc = op.op === 'append' ? (doc as string) + (op.value as string) : op.value;
      continue;
    }
    const tokens = op.path.split('/');
    let parent = doc as Record<string, unknown>;
    for (let k = 1; k < tokens.length - 1; k++) parent = parent[unescape(tokens[k]!)] as Record<string, unknown>;
    if (parent === null || typeof parent !== 'object') throw new Error(`patch path ${op.path} does not exist`);
    const last = tokens[tokens.length - 1]!;
    const key = Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : unescape(last);
    const value = op.op === 'append' ? (parent[key as string] as string) + (op.value as string) : op.value;
    if (Array.isArray(parent) && op.op === 'add' && (key as number) < parent.length) parent.splice(key as number, 0, value);
    else if (key === '__proto__') Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
    else parent[key as string] = value;
  }
  return doc;
}

function unescape(token: string): string {
  return token.indexOf('~') === -1 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

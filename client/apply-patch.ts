// Applies a patch preview (docs/streaming.md "Preview modes"): JSON Patch (RFC 6902) `add` and
// `replace`, plus `append`, which adds text to the end of the string at `path`. The service sends a
// container once, in the push that first shows it, and only its new members afterwards, so a client
// that applies every state's `partial_patch` in order holds the progressive preview at each step.
// An `append` without a path continues the string the session's previous operation named, possibly
// in an earlier state: the path is remembered for the value applyPatch returns (a WeakMap, so a
// caller that passes that value back needs no state of its own).
// Hand-written: the three operations are a dozen lines, and a general JSON Patch library has none
// for `append`.
import type { PatchOperation } from '../engine/types.js';

/** The path of the last operation applied to a preview, by the preview's root container. */
const lastPaths = new WeakMap<object, string>();

/**
 * Applies `ops` in order to `doc` (mutated in place where it is a container); returns the new
 * document. Pass the returned value to the next call: an `append` without a path continues there.
 */
export function applyPatch(doc: unknown, ops: readonly PatchOperation[]): unknown {
  let last = isContainer(doc) ? lastPaths.get(doc) : undefined;
  for (const op of ops) {
    const path = op.path ?? last;
    if (path === undefined) {
      throw new Error('patch: an append without a path continues the previous operation\'s string; pass applyPatch the value it returned for the previous state');
    }
    last = path;
    if (path === '') {
      doc = op.op === 'append' ? (doc as string) + op.value : op.value;
      continue;
    }
    const tokens = path.split('/');
    let parent = doc as Record<string, unknown>;
    for (let k = 1; k < tokens.length - 1; k++) parent = parent[unescape(tokens[k]!)] as Record<string, unknown>;
    if (parent === null || typeof parent !== 'object') throw new Error(`patch path ${path} does not exist`);
    const tail = tokens[tokens.length - 1]!;
    const key = Array.isArray(parent) ? (tail === '-' ? parent.length : Number(tail)) : unescape(tail);
    const value = op.op === 'append' ? (parent[key as string] as string) + op.value : op.value;
    if (Array.isArray(parent) && op.op === 'add' && (key as number) < parent.length) parent.splice(key as number, 0, value);
    else if (key === '__proto__') Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
    else parent[key as string] = value;
  }
  if (last !== undefined && isContainer(doc)) lastPaths.set(doc, last);
  return doc;
}

function isContainer(doc: unknown): doc is object {
  return doc !== null && typeof doc === 'object';
}

function unescape(token: string): string {
  return token.indexOf('~') === -1 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

// Applies a patch preview (docs/streaming.md "Preview modes"): JSON Patch (RFC 6902) `add` and
// `replace`, plus `append`, which adds text to the end of the string at `path`. The service sends a
// container once, in the push that first shows it, and only its new members afterwards, so a client
// that applies every state's `partial_patch` in order holds the progressive preview at each step.
// A value applyPatch returned never changes afterwards: the next call copies each container on the
// way to what it changes (its member list, not its members) and shares the rest, so a caller may
// keep every preview it was handed.
// An `append` without a path continues the string the session's previous operation named, possibly
// in an earlier state: the path is remembered for the value applyPatch returns (a WeakMap, so a
// caller that passes that value back needs no state of its own).
// Hand-written: the three operations are a dozen lines, and a general JSON Patch library has none
// for `append` (nor copies only the containers it changes).
import type { PatchOperation } from '../engine/types.js';

type Container = Record<string, unknown> | unknown[];

/** The path of the last operation applied to a preview, by the preview's root container. */
const lastPaths = new WeakMap<object, string>();

/**
 * Applies `ops` in order to `doc` and returns the new document; `doc` itself is left as it was.
 * Pass the returned value to the next call: an `append` without a path continues there.
 */
export function applyPatch(doc: unknown, ops: readonly PatchOperation[]): unknown {
  let last = isContainer(doc) ? lastPaths.get(doc) : undefined;
  // Containers made in this call (copies, and values the operations brought): changed in place.
  const fresh = new Set<object>();
  for (const op of ops) {
    const path = op.path ?? last;
    if (path === undefined) {
      throw new Error('patch: an append without a path continues the previous operation\'s string; pass applyPatch the value it returned for the previous state');
    }
    last = path;
    if (isContainer(op.value)) fresh.add(op.value);
    if (path === '') {
      doc = op.op === 'append' ? (doc as string) + op.value : op.value;
      continue;
    }
    if (!isContainer(doc)) throw new Error(`patch path ${path} does not exist`);
    if (!fresh.has(doc)) doc = copyOf(doc, fresh);
    const tokens = path.split('/');
    let parent = doc as Record<string, unknown>;
    for (let k = 1; k < tokens.length - 1; k++) {
      const name = Array.isArray(parent) ? Number(tokens[k]) : unescape(tokens[k]!);
      let child = parent[name as string];
      if (!isContainer(child)) throw new Error(`patch path ${path} does not exist`);
      if (!fresh.has(child)) setMember(parent, name, child = copyOf(child, fresh));
      parent = child as Record<string, unknown>;
    }
    const tail = tokens[tokens.length - 1]!;
    const key = Array.isArray(parent) ? (tail === '-' ? parent.length : Number(tail)) : unescape(tail);
    const value = op.op === 'append' ? (parent[key as string] as string) + op.value : op.value;
    if (Array.isArray(parent) && op.op === 'add' && (key as number) < parent.length) parent.splice(key as number, 0, value);
    else setMember(parent, key, value);
  }
  if (last !== undefined && isContainer(doc)) lastPaths.set(doc, last);
  return doc;
}

function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === 'object';
}

/** A container's member list copied (its members shared), marked fresh. */
function copyOf(container: Container, fresh: Set<object>): Container {
  // Spread defines own data properties, so a `__proto__` member stays a member.
  const copy: Container = Array.isArray(container) ? container.slice() : { ...container };
  fresh.add(copy);
  return copy;
}

function setMember(parent: Container, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
  else (parent as Record<string, unknown>)[key as string] = value;
}

function unescape(token: string): string {
  return token.indexOf('~') === -1 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

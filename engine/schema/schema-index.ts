// One pass over a compiled schema that records, for every subschema, its JSON Pointer from the root
// and its base URI, plus the URIs declared by $id/$anchor. The walker resolves $ref through it, and
// the pass rejects in-place reference cycles ({"$ref":"#"}, a -> b -> a), which would make
// validation recurse forever without consuming any of the value.
import { escapeToken, unescapeToken } from './json-pointer.js';

export type SchemaObject = { readonly [key: string]: unknown };
export type SchemaNode = boolean | SchemaObject;

export class SchemaCycleError extends Error {}

type Resolve = (base: string, ref: string) => string;

const SINGLE = ['additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else',
  'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'items'] as const;
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;
/** Keywords whose subschemas apply to the same value (edges of the in-place graph). */
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'] as const;

const TRAILING_HASH = /#\/?$/;
function normalizeId(id: string): string {
  return id.replace(TRAILING_HASH, '');
}

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class SchemaIndex {
  private readonly pointers = new Map<SchemaObject, string>();
  private readonly bases = new Map<SchemaObject, string>();
  private readonly documents = new Map<string, { node: SchemaObject; pointer: string }>();
  private readonly anchors = new Map<string, { node: SchemaObject; pointer: string }>();
  private readonly refs = new Map<SchemaObject, SchemaNode | null>();

  constructor(readonly root: SchemaNode, rootKey: string, private readonly resolve: Resolve) {
    if (isSchemaObject(root)) {
      const id = typeof root.$id === 'string' ? normalizeId(resolve(rootKey, root.$id)) : rootKey;
      this.documents.set(rootKey, { node: root, pointer: '' });
      this.documents.set(id.split('#')[0]!, { node: root, pointer: '' });
      this.visit(root, '', id);
      this.rejectInPlaceCycles();
    }
  }

  /** Every schema object some $ref resolves to (resolving may index nodes outside the usual keywords). */
  refTargets(): Set<SchemaObject> {
    const targets = new Set<SchemaObject>();
    let seen = 0;
    while (seen < this.pointers.size) {
      const nodes = [...this.pointers.keys()].slice(seen);
      seen += nodes.length;
      for (const node of nodes) {
        const target = this.refTarget(node);
        if (isSchemaObject(target)) targets.add(target);
      }
    }
    return targets;
  }

  pointerOf(node: SchemaObject): string | undefined {
    return this.pointers.get(node);
  }

  /** The schema a node's $ref (or $dynamicRef/$recursiveRef, read statically) points to, if any. */
  refTarget(node: SchemaObject): SchemaNode | null {
    let target = this.refs.get(node);
    if (target === undefined) {
      const ref = typeof node.$ref === 'string' ? node.$ref
        : typeof node.$dynamicRef === 'string' ? node.$dynamicRef
          : typeof node.$recursiveRef === 'string' ? node.$recursiveRef : null;
      target = ref === null ? null : this.lookup(ref, this.bases.get(node) ?? '');
      this.refs.set(node, target);
    }
    return target;
  }

  private lookup(ref: string, base: string): SchemaNode | null {
    const full = normalizeId(this.resolve(base, ref));
    const hash = full.indexOf('#');
    const documentUri = hash === -1 ? full : full.slice(0, hash);
    const fragment = hash === -1 ? '' : full.slice(hash + 1);
    const document = this.documents.get(documentUri);
    if (fragment === '' || fragment.startsWith('/')) {
      if (document === undefined) return null;
      return this.follow(document.node, document.pointer, fragment, base);
    }
    return this.anchors.get(documentUri + '#' + fragment)?.node ?? null;
  }

  private follow(start: SchemaObject, startPointer: string, fragment: string, base: string): SchemaNode | null {
    let node: unknown = start;
    let pointer = startPointer;
    if (fragment !== '') {
      const tokens = fragment.split('/');
      for (let i = 1; i < tokens.length; i++) {
        let token: string;
        try {
          token = unescapeToken(decodeURIComponent(tokens[i]!));
        } catch {
          return null;
        }
        if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return null;
        node = (node as Record<string, unknown>)[token];
        pointer += '/' + escapeToken(token);
      }
    }
    if (typeof node === 'boolean') return node;
    if (!isSchemaObject(node)) return null;
    // A $ref may land outside the keywords visited (e.g. under an unknown keyword): index it now.
    if (!this.pointers.has(node)) this.visit(node, pointer, base);
    return node;
  }

  private visit(start: SchemaObject, startPointer: string, startBase: string): void {
    const nodes: SchemaObject[] = [start];
    const pointers: string[] = [startPointer];
    const bases: string[] = [startBase];
    while (nodes.length > 0) {
      const node = nodes.pop()!;
      const pointer = pointers.pop()!;
      let base = bases.pop()!;
      if (this.pointers.has(node)) continue;
      if (typeof node.$id === 'string' && pointer !== startPointer) {
        const id = normalizeId(this.resolve(base, node.$id));
        if (node.$id.startsWith('#')) this.anchors.set(id, { node, pointer });
        else { base = id; this.documents.set(id.split('#')[0]!, { node, pointer }); }
      }
      this.pointers.set(node, pointer);
      this.bases.set(node, base);
      for (const key of ['$anchor', '$dynamicAnchor']) {
        const anchor = node[key];
        if (typeof anchor === 'string') this.anchors.set(base.split('#')[0] + '#' + anchor, { node, pointer });
      }
      const push = (child: unknown, childPointer: string): void => {
        if (isSchemaObject(child)) { nodes.push(child); pointers.push(childPointer); bases.push(base); }
      };
      for (const key of SINGLE) if (Object.hasOwn(node, key)) push(node[key], pointer + '/' + key);
      for (const key of LISTS) {
        const list = node[key];
        if (Array.isArray(list)) for (let i = 0; i < list.length; i++) push(list[i], `${pointer}/${key}/${i}`);
      }
      for (const key of MAPS) {
        const map = node[key];
        if (isSchemaObject(map)) for (const name of Object.keys(map)) push(map[name], `${pointer}/${key}/${escapeToken(name)}`);
      }
    }
  }

  private *inPlaceEdges(node: SchemaObject): Generator<SchemaObject> {
    const target = this.refTarget(node);
    if (isSchemaObject(target)) yield target;
    for (const key of IN_PLACE_SINGLE) if (isSchemaObject(node[key])) yield node[key] as SchemaObject;
    for (const key of IN_PLACE_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) for (const child of list) if (isSchemaObject(child)) yield child;
    }
    for (const key of IN_PLACE_MAPS) {
      const map = node[key];
      if (isSchemaObject(map)) for (const name of Object.keys(map)) if (isSchemaObject(map[name])) yield map[name] as SchemaObject;
    }
  }

  private rejectInPlaceCycles(): void {
    const ON_PATH = 1;
    const DONE = 2;
    const state = new Map<SchemaObject, number>();
    for (const start of [...this.pointers.keys()]) {
      if (state.has(start)) continue;
      const path: SchemaObject[] = [start];
      const edges: Generator<SchemaObject>[] = [this.inPlaceEdges(start)];
      state.set(start, ON_PATH);
      while (path.length > 0) {
        const next = edges[edges.length - 1]!.next();
        if (next.done) {
          state.set(path.pop()!, DONE);
          edges.pop();
          continue;
        }
        const child = next.value;
        const seen = state.get(child);
        if (seen === ON_PATH) {
          const where = this.pointers.get(child) ?? '';
          throw new SchemaCycleError(
            `"#${where}" refers back to itself without descending into the value ($ref cycle)`,
          );
        }
        if (seen === DONE) continue;
        state.set(child, ON_PATH);
        path.push(child);
        edges.push(this.inPlaceEdges(child));
      }
    }
  }
}

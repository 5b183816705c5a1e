// The walker's view of a compiled schema: flattened Effective records per schema location, and
// the navigation from one value to its members' records. Everything here is memoised on the
// cached compiled schema, so a repeated schema pays for it once; memo keys come from the schema,
// never from the value, so the memory stays bounded by the schema's size.
import { EnumInfo } from './enum-coercion.js';
import {
  buildEffective, collectDeclared, Effective, unionGroupsOf,
  type Draft, type FacetContext, type LooseDeclarations, type UnionGroup,
} from './effective.js';
import { SafePattern } from './safe-pattern.js';
import { isSchemaObject, type SchemaIndex, type SchemaNode, type SchemaObject } from './schema-index.js';

const MAX_COMBINED_MEMO = 10_000;

export class SchemaModel implements FacetContext {
  private readonly byNode = new Map<SchemaObject, Effective>();
  private readonly combined = new Map<string, Effective>();
  private readonly nodeIds = new Map<SchemaObject, number>();
  private readonly patterns = new Map<string, SafePattern>();
  private readonly enums = new Map<readonly unknown[], EnumInfo>();
  private readonly expansions = new Map<SchemaObject, readonly SchemaObject[]>();
  private readonly neverEffective: Effective;
  readonly anyEffective: Effective;

  constructor(readonly draft: Draft, private readonly index: SchemaIndex) {
    this.anyEffective = buildEffective([], false, null, null, this);
    this.neverEffective = buildEffective([], true, null, null, this);
  }

  get root(): Effective {
    return this.of(this.index.root);
  }

  pattern(source: string): SafePattern {
    let re = this.patterns.get(source);
    if (re === undefined) this.patterns.set(source, (re = new SafePattern(source)));
    return re;
  }

  pointerOf(node: SchemaObject): string | undefined {
    return this.index.pointerOf(node);
  }

  enumInfo(members: readonly unknown[]): EnumInfo {
    let info = this.enums.get(members);
    if (info === undefined) this.enums.set(members, (info = new EnumInfo(members)));
    return info;
  }

  /** The node, its $ref targets and its allOf members, transitively (each once: cycles end). */
  expand(node: SchemaNode): readonly SchemaObject[] {
    if (!isSchemaObject(node)) return [];
    let facets = this.expansions.get(node);
    if (facets === undefined) {
      facets = this.collect([node], new Set()).facets;
      this.expansions.set(node, facets);
    }
    return facets;
  }

  private collect(nodes: readonly SchemaNode[], seen: Set<SchemaObject>): { facets: SchemaObject[]; never: boolean } {
    const facets: SchemaObject[] = [];
    let never = false;
    const stack: SchemaNode[] = [...nodes].reverse();
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node === false) { never = true; continue; }
      if (node === true || seen.has(node)) continue;
      seen.add(node);
      facets.push(node);
      const allOf = node.allOf;
      if (Array.isArray(allOf)) for (let i = allOf.length - 1; i >= 0; i--) pushNode(stack, allOf[i]);
      const target = this.index.refTarget(node);
      if (target !== null) stack.push(target);
    }
    return { facets, never };
  }

  of(node: SchemaNode): Effective {
    if (node === true) return this.anyEffective;
    if (node === false) return this.neverEffective;
    let e = this.byNode.get(node);
    if (e === undefined) {
      const { facets, never } = this.collect([node], new Set());
      e = buildEffective(facets, never, unionGroupsOf(facets, this), null, this);
      this.byNode.set(node, e);
    }
    return e;
  }

  ofNodes(nodes: readonly SchemaNode[]): Effective {
    if (nodes.length === 1) return this.of(nodes[0]!);
    let key = 'n';
    for (const node of nodes) key += ',' + this.idOf(node);
    return this.memo(key, () => {
      const { facets, never } = this.collect(nodes, new Set());
      return buildEffective(facets, never, unionGroupsOf(facets, this), null, this);
    });
  }

  /** `e` with union group `group` resolved to `branch`. */
  withBranch(e: Effective, group: number, branch: SchemaNode): Effective {
    return this.memo(`b${e.id},${group},${this.idOf(branch)}`, () => {
      const seen = new Set(e.facets);
      const added = this.collect([branch], seen);
      const unions = e.unions!.filter((_, i) => i !== group).concat(unionGroupsOf(added.facets, this));
      return buildEffective(e.facets.concat(added.facets), e.never || added.never, unions, e.loose, this);
    });
  }

  /** `e` with union group `group` left undecided: every member any branch declares is kept. */
  withoutUnion(e: Effective, group: number): Effective {
    return this.memo(`u${e.id},${group}`, () => {
      const union: UnionGroup = e.unions![group]!;
      const names = new Set<string>(e.loose?.names ?? []);
      const patterns = [...(e.loose?.patterns ?? [])];
      for (const branch of union.branches) collectDeclared(branch, names, patterns, this);
      const loose: LooseDeclarations = { names, patterns };
      const unions = e.unions!.filter((_, i) => i !== group);
      return buildEffective(e.facets, e.never, unions, loose, this);
    });
  }

  /** The record for member `name` of an object under `e`; null when nothing declares it. */
  member(e: Effective, name: string): Effective | null {
    if (e.patterns === null) {
      // Only declared names are memoised: the value chooses the names, the schema bounds the memo.
      let child = e.propertyMemo.get(name);
      if (child !== undefined) return child;
      const nodes = e.properties?.get(name);
      if (nodes === undefined) return null;
      e.propertyMemo.set(name, (child = this.ofNodes(nodes)));
      return child;
    }
    const declared = e.properties?.get(name);
    const nodes: SchemaNode[] = declared === undefined ? [] : declared.slice();
    for (const { re, node } of e.patterns) if (re.test(name)) nodes.push(node);
    return nodes.length === 0 ? null : this.ofNodes(nodes);
  }

  additional(e: Effective): Effective {
    return (e.additionalMemo ??= this.ofNodes(e.additionalNodes ?? []));
  }

  /** The record for element `index` of an array under `e`; null when no keyword covers it. */
  element(e: Effective, index: number): Effective | null {
    const slot = index < e.maxPrefix ? index : e.maxPrefix;
    let child = e.elementMemo.get(slot);
    if (child === undefined) {
      const nodes: SchemaNode[] = [];
      for (const facet of e.arrays!) {
        const node = slot < facet.prefix.length ? facet.prefix[slot]! : facet.rest;
        if (node !== null) nodes.push(node);
      }
      child = nodes.length === 0 ? null : this.ofNodes(nodes);
      e.elementMemo.set(slot, child);
    }
    return child;
  }

  /** What to inject for a missing required member: its const, else a one-member enum, else its default. */
  injectionFor(e: Effective, name: string): { value: unknown } | null {
    const child = this.member(e, name);
    if (child === null) return null;
    if (child.injection === undefined) child.injection = findInjection(child);
    return child.injection;
  }

  private idOf(node: SchemaNode): string {
    if (typeof node === 'boolean') return node ? 't' : 'f';
    let id = this.nodeIds.get(node);
    if (id === undefined) this.nodeIds.set(node, (id = this.nodeIds.size + 1));
    return '' + id;
  }

  private memo(key: string, build: () => Effective): Effective {
    let e = this.combined.get(key);
    if (e === undefined) {
      e = build();
      if (this.combined.size < MAX_COMBINED_MEMO) this.combined.set(key, e);
    }
    return e;
  }
}

function pushNode(stack: SchemaNode[], node: unknown): void {
  if (typeof node === 'boolean' || isSchemaObject(node)) stack.push(node);
}

function findInjection(e: Effective): { value: unknown } | null {
  for (const f of e.facets) if (Object.hasOwn(f, 'const')) return { value: f.const };
  for (const f of e.facets) if (Array.isArray(f.enum) && f.enum.length === 1) return { value: f.enum[0] };
  for (const f of e.facets) if (Object.hasOwn(f, 'default')) return { value: f.default };
  return null;
}


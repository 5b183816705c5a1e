// What a set of schema objects that all apply to one value ("facets": the schema, its $ref targets
// and allOf members) asks of that value, flattened once per schema location so the walker does
// lookups, not schema interpretation, for every value it visits.
import { EnumInfo } from './enum-coercion.js';
import type { SafePattern } from './safe-pattern.js';
import type { SchemaNode, SchemaObject } from './schema-index.js';
import { isSchemaObject } from './schema-index.js';
import { maskOfTypeKeyword, T_ANY, T_NULL, typeBitOf } from './type-mask.js';

export type Draft = 'draft-07' | '2019-09' | '2020-12';

/** How members not declared by `properties`/`patternProperties` are treated. */
export const Additional = { Default: 0, Allow: 1, Forbid: 2, Schema: 3 } as const;
export type AdditionalRule = (typeof Additional)[keyof typeof Additional];

export interface UnionGroup {
  readonly kind: 'anyOf' | 'oneOf';
  readonly branches: readonly SchemaNode[];
  /** Pointer of each branch from the schema root (for its compiled validator). */
  readonly pointers: readonly string[];
}

export interface ArrayFacet {
  readonly prefix: readonly SchemaNode[];
  readonly rest: SchemaNode | null;
}

export interface LooseDeclarations {
  readonly names: ReadonlySet<string>;
  readonly patterns: readonly SafePattern[];
}

/** What the model provides while flattening (pattern compilation, pointers). */
export interface FacetContext {
  readonly draft: Draft;
  pattern(source: string): SafePattern;
  pointerOf(node: SchemaObject): string | undefined;
  enumInfo(members: readonly unknown[]): EnumInfo;
  /** The node plus its $ref targets and allOf members. */
  expand(node: SchemaNode): readonly SchemaObject[];
}

let nextId = 1;

export class Effective {
  readonly id = nextId++;
  never = false;
  /** Allowed types (T_ANY when unconstrained). */
  types = T_ANY;
  /** Types a mismatching value may be coerced to; 0 = no coercion. Inferred from enum/const when `type` is absent. */
  coerceTo = 0;
  enums: EnumInfo[] | null = null;
  properties: Map<string, SchemaNode[]> | null = null;
  patterns: { re: SafePattern; node: SchemaNode }[] | null = null;
  declaresMembers = false;
  additional: AdditionalRule = Additional.Default;
  additionalNodes: SchemaNode[] | null = null;
  required: string[] | null = null;
  loose: LooseDeclarations | null = null;
  arrays: ArrayFacet[] | null = null;
  maxPrefix = 0;
  unions: UnionGroup[] | null = null;
  /** Nothing for the walker to do here or below. */
  any = false;
  /** Object keywords present: members need a look. */
  objectWork = false;
  /** A scalar of an allowed type needs nothing here (no enum, no union): the walk can skip it. */
  scalarPassThrough = false;
  /** $dynamicRef/$recursiveRef were read statically: what applies here is a best guess. */
  approximate = false;
  // Memos filled by the model, bounded by the schema's own size.
  readonly propertyMemo = new Map<string, Effective | null>();
  readonly elementMemo = new Map<number, Effective | null>();
  injection: { value: unknown } | null | undefined = undefined;
  additionalMemo: Effective | undefined = undefined;

  constructor(readonly facets: readonly SchemaObject[]) {}

  /** True when `name` is declared somewhere other than `properties` (branches, if/then/else, required). */
  isLooselyDeclared(name: string): boolean {
    if (this.required !== null && this.required.includes(name)) return true;
    const loose = this.loose;
    if (loose === null) return false;
    if (loose.names.has(name)) return true;
    for (const re of loose.patterns) if (re.test(name)) return true;
    return false;
  }
}

export function buildEffective(
  facets: readonly SchemaObject[],
  never: boolean,
  unions: UnionGroup[] | null,
  loose: LooseDeclarations | null,
  cx: FacetContext,
): Effective {
  const e = new Effective(facets);
  e.never = never;
  e.unions = unions !== null && unions.length > 0 ? unions : null;
  e.loose = loose;
  let hasType = false;
  let enumMask = 0;
  const looseNames = new Set<string>(loose?.names ?? []);
  const loosePatterns: SafePattern[] = loose ? [...loose.patterns] : [];
  for (const f of facets) {
    if (Object.hasOwn(f, 'type')) {
      let mask = maskOfTypeKeyword(f.type);
      if (f.nullable === true) mask |= T_NULL;
      e.types &= mask;
      hasType = true;
    }
    if (Array.isArray(f.enum)) enumMask |= addEnum(e, f.enum, cx);
    if (typeof f.$dynamicRef === 'string' || typeof f.$recursiveRef === 'string') e.approximate = true;
    if (Object.hasOwn(f, 'const')) enumMask |= addEnum(e, [f.const], cx);
    readObjectKeywords(e, f, cx);
    readArrayKeywords(e, f, cx.draft);
    for (const key of ['if', 'then', 'else'] as const) collectDeclared(f[key], looseNames, loosePatterns, cx);
    for (const key of ['dependentSchemas', 'dependencies'] as const) {
      const map = f[key];
      if (isSchemaObject(map)) for (const name of Object.keys(map)) collectDeclared(map[name], looseNames, loosePatterns, cx);
    }
  }
  if (looseNames.size > 0 || loosePatterns.length > 0) e.loose = { names: looseNames, patterns: loosePatterns };
  e.coerceTo = hasType ? e.types : enumMask;
  e.objectWork = e.declaresMembers || e.required !== null || e.additional !== Additional.Default;
  e.any = !e.never && e.coerceTo === 0 && e.types === T_ANY && e.enums === null && !e.objectWork
    && e.arrays === null && e.unions === null;
  e.scalarPassThrough = !e.never && e.enums === null && e.unions === null;
  return e;
}

function addEnum(e: Effective, members: readonly unknown[], cx: FacetContext): number {
  (e.enums ??= []).push(cx.enumInfo(members));
  let mask = 0;
  for (const member of members) mask |= typeBitOf(member);
  return mask;
}

function readObjectKeywords(e: Effective, f: SchemaObject, cx: FacetContext): void {
  const properties = f.properties;
  if (isSchemaObject(properties)) {
    e.declaresMembers = true;
    const map = (e.properties ??= new Map());
    for (const name of Object.keys(properties)) {
      const list = map.get(name);
      if (list === undefined) map.set(name, [properties[name] as SchemaNode]);
      else list.push(properties[name] as SchemaNode);
    }
  }
  const patternProperties = f.patternProperties;
  if (isSchemaObject(patternProperties)) {
    e.declaresMembers = true;
    for (const source of Object.keys(patternProperties)) {
      (e.patterns ??= []).push({ re: cx.pattern(source), node: patternProperties[source] as SchemaNode });
    }
  }
  for (const key of ['additionalProperties', 'unevaluatedProperties'] as const) {
    if (!Object.hasOwn(f, key)) continue;
    const rule = f[key];
    if (rule === false) e.additional = Additional.Forbid;
    else if (e.additional === Additional.Forbid) continue;
    else if (rule === true || (isSchemaObject(rule) && Object.keys(rule).length === 0)) {
      if (e.additional !== Additional.Schema) e.additional = Additional.Allow;
    } else if (isSchemaObject(rule)) {
      e.additional = Additional.Schema;
      (e.additionalNodes ??= []).push(rule);
    }
  }
  if (Array.isArray(f.required)) {
    for (const name of f.required) {
      if (typeof name !== 'string') continue;
      const required = (e.required ??= []);
      if (!required.includes(name)) required.push(name);
    }
  }
}

function readArrayKeywords(e: Effective, f: SchemaObject, draft: Draft): void {
  let prefix: readonly SchemaNode[] = [];
  let rest: SchemaNode | null = null;
  if (draft === '2020-12') {
    if (Array.isArray(f.prefixItems)) prefix = f.prefixItems as SchemaNode[];
    if (isNode(f.items)) rest = f.items;
  } else if (Array.isArray(f.items)) {
    prefix = f.items as SchemaNode[];
    if (isNode(f.additionalItems)) rest = f.additionalItems;
  } else if (isNode(f.items)) {
    rest = f.items;
  }
  if (prefix.length === 0 && rest === null) return;
  (e.arrays ??= []).push({ prefix, rest });
  if (prefix.length > e.maxPrefix) e.maxPrefix = prefix.length;
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** Names and patterns a subschema declares (its properties, patternProperties, required), one level deep. */
export function collectDeclared(node: unknown, names: Set<string>, patterns: SafePattern[], cx: FacetContext): void {
  if (!isSchemaObject(node)) return;
  for (const facet of cx.expand(node)) {
    if (isSchemaObject(facet.properties)) for (const name of Object.keys(facet.properties)) names.add(name);
    if (isSchemaObject(facet.patternProperties)) {
      for (const source of Object.keys(facet.patternProperties)) patterns.push(cx.pattern(source));
    }
    if (Array.isArray(facet.required)) for (const name of facet.required) if (typeof name === 'string') names.add(name);
  }
}

export function unionGroupsOf(facets: readonly SchemaObject[], cx: FacetContext): UnionGroup[] {
  const groups: UnionGroup[] = [];
  for (const f of facets) {
    for (const kind of ['anyOf', 'oneOf'] as const) {
      const branches = f[kind];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const base = cx.pointerOf(f);
      if (base === undefined) continue; // unreachable by pointer: validated, not repaired
      groups.push({ kind, branches: branches as SchemaNode[], pointers: branches.map((_, i) => `${base}/${kind}/${i}`) });
    }
  }
  return groups;
}

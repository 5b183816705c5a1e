// The "closed" twin of a plain schema, for the valid-input fast path of applySchema.
//
// On a value ajv accepts, the walk can still change something in one way only: an object member
// no `properties` entry declares may be renamed towards a declared one ("First Name" → first_name)
// or, in strict mode, removed. Everything else it does (coercion, enum case, injection of required
// members) acts only on values that fail the schema. So a value that passes the twin below (the same
// schema with every object that declares properties closed by `additionalProperties: false`) is
// exactly what the walk would return, and the walk is skipped: on a valid 638 B reply the walk cost
// 2 µs against 0.3 µs for one more ajv call.
//
// That reasoning holds only where the walker's view and ajv's agree without branch choices, so the
// twin exists only for plain schemas: type, properties, items (one schema), required, enum, const,
// scalar constraints, annotations, and $ref to a local $defs/definitions entry. Any anyOf, oneOf,
// allOf, not, if/then/else, pattern or dependent members, tuples, unevaluated*, $id or anchors:
// no twin, and every value is walked as before. The twin only ever rejects more than the schema,
// so its being stricter than needed costs a walk, never a wrong answer.
import { isSchemaObject, type SchemaNode, type SchemaObject } from './schema-index.js';

/** Keywords that change which members or branches apply; any of them means no twin. */
const STRUCTURAL = new Set([
  'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'propertyNames',
  'dependentSchemas', 'dependentRequired', 'dependencies', 'unevaluatedProperties', 'unevaluatedItems',
  'prefixItems', 'additionalItems', 'contains', 'discriminator', '$id', 'id', '$anchor', '$dynamicAnchor',
  '$dynamicRef', '$recursiveRef', '$recursiveAnchor', 'minProperties', 'maxProperties',
]);
const LOCAL_REF = /^#\/(?:\$defs|definitions)\/[^/~]+$/;
/** Deep enough for any real extraction schema; deeper ones are simply walked. */
const MAX_DEPTH = 64;

/**
 * The closed twin of `schema` (a private parsed copy, which it modifies), or null when the schema
 * is not plain enough for the fast path to be exact.
 */
export function closedTwin(schema: SchemaNode): SchemaNode | null {
  if (typeof schema === 'boolean') return schema;
  return close(schema, 0) ? schema : null;
}

function close(node: SchemaObject, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  for (const key of Object.keys(node)) if (STRUCTURAL.has(key)) return false;
  if (typeof node.$ref === 'string') {
    // Only a bare local reference (annotations aside): its target is closed where it is defined.
    if (!LOCAL_REF.test(node.$ref) || node.properties !== undefined || node.items !== undefined) return false;
  } else if (node.$ref !== undefined) return false;
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = node[key];
    if (defs === undefined) continue;
    if (!isSchemaObject(defs)) return false;
    for (const name of Object.keys(defs)) if (!closeChild(defs[name], depth)) return false;
  }
  const items = node.items;
  if (items !== undefined && !closeChild(items, depth)) return false; // an array of schemas is a tuple: not plain
  const properties = node.properties;
  // A map-shaped object (`additionalProperties` a schema, no `properties`) walks its members with it.
  if (properties === undefined && isSchemaObject(node.additionalProperties) && !closeChild(node.additionalProperties, depth)) return false;
  if (properties !== undefined) {
    if (!isSchemaObject(properties)) return false;
    for (const name of Object.keys(properties)) if (!closeChild(properties[name], depth)) return false;
    // Where the walk could rename or remove a member, the twin refuses it instead.
    (node as Record<string, unknown>).additionalProperties = false;
  }
  return true;
}

function closeChild(child: unknown, depth: number): boolean {
  if (typeof child === 'boolean') return true;
  return isSchemaObject(child) && close(child, depth + 1);
}

// Bounds that keep a hostile schema (or a hostile value under a legitimate schema) from costing
// more than a bounded amount of CPU or memory. docs/schema.md explains each one.

/** Deepest nesting of objects/arrays inside a schema document. Deeper schemas are INVALID_REQUEST. */
export const MAX_SCHEMA_DEPTH = 128;

/** Largest schema, measured as its canonical JSON text (UTF-16 code units). */
export const MAX_SCHEMA_TEXT = 256 * 1024;

/** Compiled schemas (and compile failures) kept; least recently used goes first. */
export const CACHE_MAX_ENTRIES = 256;

/** Canonical text kept across all cache entries; compiled code grows with it, so it bounds memory. */
export const CACHE_MAX_TEXT = 16 * 1024 * 1024;

/** Validation failures listed one by one; the rest are summarised in one more error. */
export const MAX_REPORTED_ERRORS = 20;

/**
 * anyOf/oneOf choices that need validation, nested along one path of the value. Each validates a
 * subtree, so the bound keeps their total cost linear in the value (deeper unions choose by type).
 */
export const MAX_UNION_CHECK_DEPTH = 16;

/** anyOf/oneOf trials nested inside other trials (each level is one JS call, so this is the stack bound). */
export const MAX_UNION_TRIAL_DEPTH = 8;

/** Work allowance for anyOf/oneOf trials: a fixed base plus this much per value visited by the main walk. */
export const TRIAL_BUDGET_BASE = 10_000;
export const TRIAL_BUDGET_PER_VALUE = 8;

/**
 * Validation work per applySchema call, in $ref-target evaluations (see validation-budget.ts):
 * a fixed base plus this much per value the walk visits. An ordinary recursive schema spends about
 * one unit per value, plus one per anyOf/oneOf check level above it.
 */
export const VALIDATION_BUDGET_BASE = 100_000;
export const VALIDATION_BUDGET_PER_VALUE = 32;

/** Characters of a value quoted in an error sentence. */
export const MAX_QUOTED_VALUE = 60;

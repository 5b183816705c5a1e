// Compiles a schema (our private copy, parsed from its canonical text) with ajv 8. Each schema gets
// its own ajv instance, so one client's $id can neither clash with nor be $ref'd by another's, and
// an evicted entry frees everything it compiled. Meta-schema checks use one shared instance per draft.
import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { Options, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { makeError } from '../error-codes.js';
import type { RepairError } from '../types.js';
import type { Draft } from './effective.js';
import { SchemaModel } from './model.js';
import { closedTwin } from './closed-schema.js';
import { safeRegExpEngine } from './safe-pattern.js';
import { isSchemaObject, SchemaIndex, type SchemaNode } from './schema-index.js';
import { uniqueItemsKeyword } from './unique-items.js';
import { BUDGET_KEYWORD, budgetKeyword } from './validation-budget.js';

type AjvInstance = InstanceType<typeof AjvModule.default>;
type AjvClass = new (options: Options) => AjvInstance;

const CLASSES: Record<Draft, AjvClass> = {
  'draft-07': AjvModule.default,
  '2019-09': Ajv2019Module.default as unknown as AjvClass,
  '2020-12': Ajv2020Module.default as unknown as AjvClass,
};
const META_IDS: Record<Draft, string> = {
  'draft-07': 'http://json-schema.org/draft-07/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};
const BY_SCHEMA_URI: Record<string, Draft> = {
  'json-schema.org/draft-07/schema': 'draft-07',
  'json-schema.org/draft/2019-09/schema': '2019-09',
  'json-schema.org/draft/2020-12/schema': '2020-12',
};

/** The key the root is registered under; branch validators are fetched as ROOT_KEY#/pointer. */
const ROOT_KEY = 'jsonmend:root';
/** The key of the root's closed twin (closed-schema.ts), when it has one. */
const CLOSED_KEY = 'jsonmend:closed';
const MAX_REASON = 400;

const COMPILE_OPTIONS: Options = {
  // Not allErrors: with it, nested failing anyOf branches multiply their error lists (measured: 22
  // million error objects for a 4,096-leaf value under 12 nested anyOf; out of memory at 20). The
  // walker reports every type and required failure it can be sure of; ajv adds the first other one.
  allErrors: false,
  strict: false, // model-written schemas carry unknown keywords (examples, x-*, nullable...): ignore them
  logger: false,
  ownProperties: true, // `required: ["toString"]` must not be met by Object.prototype
  validateSchema: false, // done once, by the shared meta validator below
  loopRequired: 50, // keep generated code linear in huge `required`/`enum` lists
  loopEnum: 50,
  code: { regExp: safeRegExpEngine, optimize: false },
};

export interface CompiledSchema {
  readonly ok: true;
  readonly validate: ValidateFunction;
  /** The closed twin's validator (closed-schema.ts): a value it accepts needs no walk. Null: walk every value. */
  readonly unchangedIfValid: ValidateFunction | null;
  readonly model: SchemaModel;
  validatorAt(pointer: string): ValidateFunction;
}

export interface CompileFailure {
  readonly ok: false;
  readonly error: RepairError;
}

export type CompileResult = CompiledSchema | CompileFailure;

export function invalidSchema(reason: string): CompileFailure {
  const text = reason.length > MAX_REASON ? reason.slice(0, MAX_REASON) + '…' : reason;
  return { ok: false, error: makeError('INVALID_REQUEST', 'Invalid schema: ' + text) };
}

export function draftOf(schema: SchemaNode): Draft | undefined {
  if (!isSchemaObject(schema) || schema.$schema === undefined) return 'draft-07';
  if (typeof schema.$schema !== 'string') return undefined;
  const uri = schema.$schema.replace(/^https?:\/\//, '').replace(/#$/, '');
  return Object.hasOwn(BY_SCHEMA_URI, uri) ? BY_SCHEMA_URI[uri] : undefined;
}

const metaValidators = new Map<Draft, { ajv: AjvInstance; validate: ValidateFunction }>();

function metaValidatorFor(draft: Draft): { ajv: AjvInstance; validate: ValidateFunction } {
  let meta = metaValidators.get(draft);
  if (meta === undefined) {
    const ajv = new CLASSES[draft]({ strict: false, logger: false });
    meta = { ajv, validate: ajv.getSchema(META_IDS[draft])! };
    metaValidators.set(draft, meta);
  }
  return meta;
}

/** Compiles the meta-schemas now (about 40 ms each), so the first client schema does not pay for them. */
export function warmUpMetaValidators(): void {
  for (const draft of Object.keys(CLASSES) as Draft[]) metaValidatorFor(draft);
}

/** `text` is canonical JSON within the size limits (see canonical.ts). */
export function compileSchemaText(text: string): CompileResult {
  const schema = JSON.parse(text) as SchemaNode;
  const draft = draftOf(schema);
  if (draft === undefined) {
    return invalidSchema(`unsupported $schema ${JSON.stringify((schema as { $schema?: unknown }).$schema)}; ` +
      'use draft-07, 2019-09 or 2020-12 (or leave $schema out for draft-07)');
  }
  const meta = metaValidatorFor(draft);
  if (!meta.validate(schema)) return invalidSchema(meta.ajv.errorsText(meta.validate.errors, { dataVar: 'schema' }));
  try {
    const ajv = new CLASSES[draft](COMPILE_OPTIONS);
    addFormatsModule.default(ajv);
    ajv.removeKeyword('uniqueItems');
    ajv.addKeyword(uniqueItemsKeyword);
    ajv.addKeyword(budgetKeyword(ajv.RULES.rules[0]!.rules[0]!.keyword));
    // Built from a fresh copy, before the budget marks below: the twin is a second, unmarked document.
    const twin = closedTwin(JSON.parse(text) as SchemaNode);
    // Indexed first: it rejects in-place $ref cycles, on which ajv's compiler would overflow the stack.
    const index = new SchemaIndex(schema, ROOT_KEY, (base, ref) => ajv.opts.uriResolver.resolve(base, ref));
    // Our private copy: marking it changes nothing the client sees (see validation-budget.ts).
    for (const target of index.refTargets()) (target as Record<string, unknown>)[BUDGET_KEYWORD] = true;
    ajv.addSchema(schema, ROOT_KEY);
    const validate = ajv.getSchema(ROOT_KEY);
    if (validate === undefined) return invalidSchema('it could not be compiled');
    let unchangedIfValid: ValidateFunction | null = null;
    if (twin !== null) {
      try {
        ajv.addSchema(twin as object, CLOSED_KEY);
        unchangedIfValid = ajv.getSchema(CLOSED_KEY) ?? null;
      } catch {
        // Never expected (the twin is the schema with members closed), but it is an optimisation:
        // without it every value is walked, and the schema itself compiled.
        unchangedIfValid = null;
      }
    }
    const model = new SchemaModel(draft, index);
    model.root; // flatten the root now so pattern errors surface here, not mid-walk
    const branchValidators = new Map<string, ValidateFunction>();
    return {
      ok: true,
      validate,
      unchangedIfValid,
      model,
      validatorAt(pointer: string): ValidateFunction {
        let branch = branchValidators.get(pointer);
        if (branch === undefined) {
          branch = ajv.getSchema(ROOT_KEY + '#' + pointer.split('/').map(encodeURIComponent).join('/')) ?? rejectAll;
          branchValidators.set(pointer, branch);
        }
        return branch;
      },
    };
  } catch (error) {
    if (error instanceof RangeError) return invalidSchema('it nests or recurses too deeply to compile');
    return invalidSchema((error as Error).message.replaceAll(ROOT_KEY, '#'));
  }
}

// A branch whose validator cannot be built is treated as not fitting, so nothing is coerced for it.
const rejectAll = Object.assign(() => false, { errors: null }) as unknown as ValidateFunction;

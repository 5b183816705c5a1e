// State shared by one applySchema call's main walk and the anyOf/oneOf trials nested in it.
import type { ValidateFunction } from 'ajv';
import type { Mode } from '../types.js';
import type { SchemaModel } from './model.js';
import { TRIAL_BUDGET_BASE } from './limits.js';

export class WalkEnv {
  /** Trial work left (values visited); the main walk earns more as it goes. */
  budget = TRIAL_BUDGET_BASE;
  trialDepth = 0;
  /** Set when a trial ran out of budget; that trial's result is discarded. */
  aborted = false;
  /** Pointer of the first value whose anyOf/oneOf choice the budget stopped (left unrepaired). */
  exhaustedAt: string | null = null;
  /** The value a union resolution adopted (see unions.ts). */
  adopted: unknown = undefined;
  /** Set by a union resolution that validated the value (its members count one level deeper). */
  checked = false;
  /** Set by a union resolution that merged a branch in (what applies below is no longer certain). */
  merged = false;

  constructor(
    readonly model: SchemaModel,
    readonly mode: Mode,
    readonly validatorAt: (pointer: string) => ValidateFunction,
  ) {}
}

// A bound on validation work. A schema can make ajv re-validate the same part of a value along
// many paths (two anyOf branches that both recurse through the same $ref double the work at every
// level: 2^depth). Every way into such repetition passes through a $ref, so each $ref target gets a
// zero-cost-looking keyword that spends one unit of a per-call budget when it is evaluated, and
// stops validation once the budget is gone. Ordinary schemas spend about one unit per value.
import type { FuncKeywordDefinition } from 'ajv';

export const BUDGET_KEYWORD = 'x-jsonmend-budget';

export class ValidationBudgetExceeded extends Error {}

let unitsLeft = 0;

export function setValidationBudget(units: number): void {
  unitsLeft = units;
}

export function grantValidationBudget(units: number): void {
  unitsLeft += units;
}

const spend = (): boolean => {
  if (--unitsLeft < 0) throw new ValidationBudgetExceeded('validation budget exceeded');
  return true;
};

/** `first`: the keyword ajv evaluates first in this draft, so the budget is spent before any recursion. */
export function budgetKeyword(first: string): FuncKeywordDefinition {
  return { keyword: BUDGET_KEYWORD, schemaType: 'boolean', errors: false, before: first, validate: spend };
}

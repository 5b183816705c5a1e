// Replacement for ajv's uniqueItems: ajv compares items pairwise (quadratic) unless the item type is
// a declared scalar, so an array of 100k objects under a hostile schema would take minutes. Here
// each item's canonical text goes into a Map: linear in the size of the array.
import type { FuncKeywordDefinition } from 'ajv';
import { stableValueText } from './canonical.js';

interface UniqueItemsValidator {
  (schema: boolean, data: unknown): boolean;
  errors?: object[];
}

const validateUniqueItems: UniqueItemsValidator = (schema: boolean, data: unknown): boolean => {
  if (!schema || !Array.isArray(data) || data.length < 2) return true;
  const seen = new Map<unknown, number>();
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    const key = item !== null && typeof item === 'object' ? stableValueText(item) : typeof item === 'string' ? 's' + item : item;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      validateUniqueItems.errors = [{
        keyword: 'uniqueItems',
        message: `must NOT have duplicate items (items ## ${earlier} and ${i} are identical)`,
        params: { i, j: earlier },
      }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: validateUniqueItems as FuncKeywordDefinition['validate'],
};

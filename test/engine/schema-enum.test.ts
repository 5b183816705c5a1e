// An exact enum member passes; a unique case- and whitespace-insensitive match is
// an enum_coercion (low confidence, not safe); anything else fails.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

const schema = {
  properties: {
    status: { type: 'string', enum: ['active', 'inactive', 'Pending Review'] },
    exact: { enum: ['A', 'a'] },
    level: { enum: ['low', 'high'] },
    answer: { const: 'Yes' },
  },
};

t.test('members pass untouched', async (t) => {
  const out = applySchema({ status: 'active', exact: 'a', level: 'high', answer: 'Yes' }, schema, 'strict');
  t.strictSame(out.repairs, []);
  t.strictSame(out.errors, []);
});

t.test('a unique case/whitespace-insensitive match is replaced by the member, at low confidence', async (t) => {
  const out = applySchema({ status: '  ACTIVE ', level: 'High', answer: ' yes' }, schema, 'strict');
  t.strictSame(out.value, { status: 'active', level: 'high', answer: 'Yes' });
  t.strictSame(out.repairs, [
    { type: 'enum_coercion', confidence: 'low', safe: false, field: '/status', original_value: '  ACTIVE ', repaired_value: 'active' },
    { type: 'enum_coercion', confidence: 'low', safe: false, field: '/level', original_value: 'High', repaired_value: 'high' },
    { type: 'enum_coercion', confidence: 'low', safe: false, field: '/answer', original_value: ' yes', repaired_value: 'Yes' },
  ]);
  const nested = applySchema({ status: 'pending review' }, schema, 'strict');
  t.strictSame(nested.value, { status: 'Pending Review' }, 'inner spacing must match; only case and the ends may differ');
});

t.test('an ambiguous match (two members fold to the same text) is not guessed', async (t) => {
  const out = applySchema({ exact: ' A ' }, schema, 'strict');
  t.strictSame(out.value, { exact: ' A ' });
  t.strictSame(out.repairs, []);
  t.strictSame(out.errors.map((e) => [e.field, e.message, e.compact_code]), [
    ['/exact', 'Field "/exact" must be one of "A", "a", but it is the string " A ".', undefined],
  ]);
});

t.test('no match fails with the allowed values in the sentence', async (t) => {
  // Validation stops at its first violation (ajv without allErrors): /answer sorts first.
  const out = applySchema({ status: 'paused', answer: 'no' }, schema, 'strict');
  t.strictSame(out.repairs, []);
  t.strictSame(out.errors.map((e) => [e.code, e.field, e.message]), [
    ['SCHEMA_VALIDATION_FAILED', '/answer', 'Field "/answer" must equal "Yes", but it is the string "no".'],
  ]);
  const next = applySchema({ status: 'paused', answer: 'Yes' }, schema, 'strict');
  t.strictSame(next.errors.map((e) => [e.field, e.message]), [
    ['/status', 'Field "/status" must be one of "active", "inactive", "Pending Review", but it is the string "paused".'],
  ]);
});

t.test('non-string members are matched exactly (after type coercion), never by case folding', async (t) => {
  const out = applySchema({ n: '2', flag: 'TRUE' }, { properties: { n: { enum: [1, 2] }, flag: { enum: [true] } } }, 'strict');
  t.strictSame(out.value, { n: 2, flag: true });
  t.strictSame(out.repairs.map((r) => r.type), ['type_coercion', 'type_coercion']);
});

// The anyOf/oneOf work budget must grow with the input and, when it does run out, say so: never a
// SCHEMA_VALIDATION_FAILED for data the engine did not finish repairing.
import t from 'tap';
import { repair } from '../../engine/index.js';
import { itemsSchema, repairedItem, taggedItems } from '../helpers/tagged-items.js';

for (const mode of ['strict', 'lenient'] as const) {
  t.test(`${mode}: 193 tagged objects (about 51 KB) under anyOf with a const discriminator are all repaired`, async (t) => {
    const items = taggedItems(193);
    const text = JSON.stringify(items);
    t.ok(text.length > 50_000, `${text.length} characters`);
    const r = repair(text, { schema: itemsSchema({ tagged: true }), mode });
    t.same(r.metadata.errors, []);
    t.equal(r.success, true);
    t.same(r.repaired, items.map(repairedItem));
    t.equal(r.metadata.schema_repairs.length, 193 * 3, 'three coercions per item, the last item included');
    t.same(r.metadata.schema_repairs.at(-1), { type: 'type_coercion', confidence: 'medium', safe: true, field: '/192/meta/score', original_value: '0.5', repaired_value: 0.5 });
  });
}

t.test('thousands of tagged objects pass too', async (t) => {
  const items = taggedItems(5000);
  const r = repair(JSON.stringify(items), { schema: itemsSchema({ tagged: true }), mode: 'lenient' });
  t.equal(r.success, true);
  t.same((r.repaired as object[])[4999], repairedItem(items[4999]!));
});

t.test('without a discriminator, five branches tried per object fit a budget that grows with the input', async (t) => {
  const items = taggedItems(3000);
  const r = repair(JSON.stringify(items), { schema: itemsSchema({ tagged: false }), mode: 'lenient' });
  t.same(r.metadata.errors, []);
  t.equal(r.success, true);
  t.same((r.repaired as object[])[2999], repairedItem(items[2999]!));
});

t.test('a discriminator that rules out every branch leaves the value for validation (a real failure)', async (t) => {
  const items = taggedItems(3);
  (items[1] as { type: string }).type = 'video';
  const r = repair(JSON.stringify(items), { schema: itemsSchema({ tagged: true }), mode: 'lenient' });
  t.equal(r.success, false);
  t.match(r.metadata.errors, [{ code: 'SCHEMA_VALIDATION_FAILED', field: '/1' }]);
});

t.test('a discriminator value that differs only in case is not decided by the discriminator', async (t) => {
  const items = taggedItems(2);
  (items[0] as { type: string }).type = ' TEXT';
  const r = repair(JSON.stringify(items), { schema: itemsSchema({ tagged: true }), mode: 'lenient' });
  t.equal(r.success, true, 'the trial under each branch coerces it to its const');
  t.equal((r.repaired as Array<{ type: string }>)[0]!.type, 'text');
});

t.test('a budget that truly runs out answers SCHEMA_WORK_LIMIT_EXCEEDED naming the field, not SCHEMA_VALIDATION_FAILED', async (t) => {
  // Twenty untagged branches cost twenty trial walks per object: more than an object earns.
  const r = repair(JSON.stringify(taggedItems(1000)), { schema: itemsSchema({ tagged: false, branches: 20 }), mode: 'lenient' });
  t.equal(r.success, false);
  t.equal(r.metadata.errors.length, 1);
  const [error] = r.metadata.errors;
  t.match(error, { code: 'SCHEMA_WORK_LIMIT_EXCEEDED', severity: 'high', recoverable: false, field: /^\/\d+$/ });
  t.match(error!.message, /work limit/);
  t.notOk(r.metadata.errors.some((e) => e.code === 'SCHEMA_VALIDATION_FAILED'));
});

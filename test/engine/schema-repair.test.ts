// Schemas through the engine's entry point: repair(text, { schema, mode }) combines syntax and
// schema repairs in one envelope RepairResponse.
import t from 'tap';
import { repair } from '../../engine/index.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    qty: { type: 'integer' },
    price: { type: 'number' },
    status: { enum: ['active', 'inactive'] },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] } },
  },
  required: ['name', 'qty'],
};

t.test('a fenced, truncated reply with unquoted keys and a numeric string: repaired and coerced in one call', async (t) => {
  const text = 'Here you go:\n```json\n{name: "Widget", qty: "42", items: [{sku: "A1", qty: "3"}';
  const out = repair(text, { schema });
  t.equal(out.success, true);
  t.strictSame(out.repaired, { name: 'Widget', qty: 42, items: [{ sku: 'A1', qty: 3 }] });
  const syntax = out.metadata.syntax_repairs.map((r) => r.type);
  t.ok(syntax.includes('removed_markdown_fence') || syntax.includes('stripped_leading_text'), syntax.join());
  t.ok(syntax.includes('quoted_unquoted_keys'));
  t.ok(syntax.includes('closed_object_bracket') && syntax.includes('closed_array_bracket'));
  t.strictSame(out.metadata.schema_repairs, [
    { type: 'type_coercion', confidence: 'medium', safe: true, field: '/qty', original_value: '42', repaired_value: 42 },
    { type: 'type_coercion', confidence: 'medium', safe: true, field: '/items/0/qty', original_value: '3', repaired_value: 3 },
  ]);
  t.strictSame(out.metadata.repairs_applied, [...out.metadata.syntax_repairs, ...out.metadata.schema_repairs]);
  t.equal(out.metadata.confidence, 'medium');
  t.equal(out.metadata.was_repaired, true);
  t.strictSame(out.metadata.errors, []);
});

t.test('a valid reply that already conforms: no repairs, confidence high', async (t) => {
  const out = repair('{"name":"W","qty":1,"status":"active"}', { schema });
  t.equal(out.success, true);
  t.strictSame(out.metadata.schema_repairs, []);
  t.equal(out.metadata.was_repaired, false);
  t.equal(out.metadata.confidence, 'high');
});

t.test('strict (the default) removes extras with a warning; lenient keeps them', async (t) => {
  const strict = repair('{"name":"W","qty":1,"debug":true}', { schema });
  t.strictSame(strict.repaired, { name: 'W', qty: 1 });
  t.strictSame(strict.metadata.schema_repairs.map((r) => [r.type, r.field]), [['removed_extra_field', '/debug']]);
  t.strictSame(strict.metadata.warnings.map((w) => [w.code, w.field]), [['EXTRA_FIELD_REMOVED', '/debug']]);
  t.equal(strict.metadata.confidence, 'medium');
  const lenient = repair('{"name":"W","qty":1,"debug":true}', { schema, mode: 'lenient' });
  t.strictSame(lenient.repaired, { name: 'W', qty: 1, debug: true });
  t.strictSame(lenient.metadata.warnings, []);
});

t.test('schema warnings follow the syntax warnings', async (t) => {
  const out = repair('{"name":"W","qty":1,"price":NaN,"x":1}', { schema });
  t.strictSame(out.metadata.warnings.map((w) => w.code), ['NAN_REPLACED', 'EXTRA_FIELD_REMOVED']);
});

t.test('an enum coercion makes the overall confidence low', async (t) => {
  const out = repair('{"name":"W","qty":1,"status":"ACTIVE"}', { schema });
  t.strictSame(out.repaired, { name: 'W', qty: 1, status: 'active' });
  t.equal(out.metadata.confidence, 'low');
});

t.test('a remaining violation: success false, repaired null, the error names the field', async (t) => {
  const out = repair('{"name":"W","qty":"many"}', { schema });
  t.equal(out.success, false);
  t.equal(out.repaired, null);
  t.equal(out.metadata.output_valid_json, false);
  t.equal(out.metadata.confidence, 'low');
  t.strictSame(out.metadata.errors, [{
    code: 'SCHEMA_VALIDATION_FAILED', message: 'Field "/qty" must be an integer, but it is the string "many".',
    severity: 'high', recoverable: false, field: '/qty', compact_code: 'TYPE_COERCION_FAILED',
  }]);
  const missing = repair('{"qty":1}', { schema });
  t.strictSame(missing.metadata.errors.map((e) => [e.code, e.field, e.compact_code]), [['SCHEMA_VALIDATION_FAILED', '/name', 'MISSING_REQUIRED_FIELD']]);
});

t.test('a schema that does not compile is INVALID_REQUEST', async (t) => {
  const out = repair('{"a":1}', { schema: { type: 'nope' } });
  t.equal(out.success, false);
  t.equal(out.metadata.errors[0]!.code, 'INVALID_REQUEST');
  t.match(out.metadata.errors[0]!.message, /^Invalid schema: /);
});

// A missing required member is injected only from the schema's const (or one-member
// enum) or default; otherwise the result fails with MISSING_REQUIRED_FIELD.
import t from 'tap';
import { applySchema } from '../../engine/schema/index.js';

const injection = (field: string, value: unknown) => ({
  type: 'injected_required_field', confidence: 'medium', safe: true, field, repaired_value: value,
});

t.test('const, one-member enum and default are injected; const wins over default', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      version: { const: 2, default: 1 }, kind: { enum: ['order'] }, currency: { type: 'string', default: 'EUR' },
      flags: { type: 'object', default: { draft: false } },
    },
    required: ['version', 'kind', 'currency', 'flags'],
  };
  const out = applySchema({}, schema, 'strict');
  t.strictSame(out.errors, []);
  t.strictSame(out.value, { version: 2, kind: 'order', currency: 'EUR', flags: { draft: false } });
  t.strictSame(out.repairs, [
    injection('/version', 2), injection('/kind', 'order'), injection('/currency', 'EUR'), injection('/flags', { draft: false }),
  ]);
  t.notOk('original_value' in out.repairs[0]!, 'nothing was there before');
});

t.test('a required member without const or default is not invented: MISSING_REQUIRED_FIELD', async (t) => {
  const schema = {
    properties: { user: { type: 'object', properties: { email: { type: 'string' }, name: { type: 'string' } }, required: ['email', 'name'] } },
    required: ['user'],
  };
  const out = applySchema({ user: {} }, schema, 'strict');
  t.strictSame(out.value, { user: {} });
  t.strictSame(out.repairs, []);
  t.strictSame(out.errors.map((e) => [e.code, e.field, e.compact_code, e.message, e.severity, e.recoverable]), [
    ['SCHEMA_VALIDATION_FAILED', '/user/email', 'MISSING_REQUIRED_FIELD', 'Required field "/user/email" is missing.', 'high', false],
    ['SCHEMA_VALIDATION_FAILED', '/user/name', 'MISSING_REQUIRED_FIELD', 'Required field "/user/name" is missing.', 'high', false],
  ]);
});

t.test('defaults reached through $ref are used; injected values are copies, not the schema itself', async (t) => {
  const schema = {
    definitions: { tags: { type: 'array', default: ['new'] } },
    properties: { tags: { $ref: '#/definitions/tags' } },
    required: ['tags'],
  };
  const first = applySchema({}, schema, 'strict');
  t.strictSame(first.value, { tags: ['new'] });
  (first.value as { tags: string[] }).tags.push('mutated');
  (first.repairs[0]!.repaired_value as string[]).push('also mutated');
  const second = applySchema({}, schema, 'strict');
  t.strictSame(second.value, { tags: ['new'] }, 'the cached schema kept its default');
  t.strictSame(schema.definitions.tags.default, ['new'], "the caller's schema is untouched");
});

t.test('a present member is never replaced by its default', async (t) => {
  const out = applySchema({ currency: 'USD' }, { properties: { currency: { default: 'EUR' } }, required: ['currency'] }, 'strict');
  t.strictSame(out.value, { currency: 'USD' });
  t.strictSame(out.repairs, []);
});

t.test('required members are checked as own members: "toString" is missing from {}', async (t) => {
  const out = applySchema({}, { required: ['toString', 'constructor'] }, 'strict');
  t.strictSame(out.errors.map((e) => e.field), ['/toString', '/constructor']);
});

t.test('a required "__proto__" default becomes an own member and leaves the prototype alone', async (t) => {
  const schema = JSON.parse('{"properties":{"__proto__":{"default":{"polluted":true}}},"required":["__proto__"]}');
  const out = applySchema({}, schema, 'strict');
  const value = out.value as object;
  t.ok(Object.hasOwn(value, '__proto__'));
  t.equal(Object.getPrototypeOf(value), Object.prototype);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.strictSame(out.repairs.map((r) => r.field), ['/__proto__']);
});

// Schema extraction: a model was asked for an invoice as JSON; the schema makes jsonmend coerce
// values to the declared types ("42.50" → 42.5), drop members the schema does not declare (strict
// mode), and fail clearly when a required field is missing.
//   JSONMEND_KEY=sk_live_... node extract.mjs
import { Jsonmend } from 'jsonmend-client';

const jm = new Jsonmend({ apiKey: process.env.JSONMEND_KEY, baseUrl: process.env.JSONMEND_URL ?? 'http://localhost:8080' });

const invoice = {
  type: 'object',
  properties: {
    number: { type: 'string' },
    total: { type: 'number' },
    paid: { type: 'boolean' },
    lines: { type: 'array', items: { type: 'object', properties: { item: { type: 'string' }, qty: { type: 'integer' } }, required: ['item', 'qty'] } },
  },
  required: ['number', 'total', 'lines'],
};

const reply = `The invoice, extracted:
{number: 'INV-7', total: "42.50", paid: "false", note: "ignore me",
 lines: [{item: "pens", qty: "3"}, {item: "paper", qty: 2},]}`;

const result = await jm.repair(reply, { schema: invoice });
console.log(JSON.stringify(result.repaired));
for (const r of result.metadata.schema_repairs) {
  const now = 'repaired_value' in r ? JSON.stringify(r.repaired_value) : '(removed)';
  console.log(`- ${r.type} ${r.field}: ${JSON.stringify(r.original_value)} -> ${now}`);
}

const missing = await jm.repair('{"number": "INV-8"}', { schema: invoice });
console.log(`without total and lines: success=${missing.success}, ${missing.metadata.errors[0]?.code}`);

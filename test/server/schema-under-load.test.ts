// 50 clients repeating one ~800-character schema, its first compile read as dear as a busy machine
// reads it (the test hooks' busy marker adds 60 ms to the worker's reading, three times the cheap
// bound): the schema still ends up compiled once on the HTTP thread and served inline, and no
// request is refused SERVICE_UNAVAILABLE: the first round's copies wait for the first one's compile
// in the pool instead of filling its queue (QUEUE_MAX 8 here).
// Bounded: 50 connections × 8 rounds to 127.0.0.1.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'schema-under-load-key';
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', QUEUE_MAX: '8', JSONMEND_TEST_HOOKS: '1' });
const url = `${server.url}/v1/repair`;

const SCHEMA = {
  type: 'object',
  description: 'An order as the model reports it. __JSONMEND_TEST_BUSY_MS=60__',
  properties: {
    id: { type: 'string', minLength: 1 },
    customer: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } }, required: ['name'] },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, price: { type: 'number' } },
        required: ['sku', 'qty'],
      },
    },
    status: { enum: ['open', 'paid', 'shipped', 'cancelled'] },
    total: { type: 'number' },
    notes: { type: ['string', 'null'], maxLength: 2000 },
    shipping: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } } },
  },
  required: ['id', 'items', 'status'],
};

async function executions(): Promise<{ inline: number; pool: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const read = (kind: string): number =>
    Number(text.split('\n').find((l) => l.startsWith(`jsonmend_tasks_total{execution="${kind}"} `))?.split(' ')[1] ?? 0);
  return { inline: read('inline'), pool: read('pool') };
}

t.test('a repeated small schema read as dear under load is served inline, never refused', async (t) => {
  t.ok(JSON.stringify(SCHEMA).length >= 600 && JSON.stringify(SCHEMA).length <= 1000, `${JSON.stringify(SCHEMA).length} characters of schema`);
  const body = (i: number) => ({ raw_output: `{id: 'o-${i}', items: [{sku: 'A', qty: "2", price: 9.5}], status: 'PAID', total: 19,`, schema: SCHEMA });
  const codes: string[][] = [];
  for (let round = 0; round < 8; round++) {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => postJson(url, body(round * 50 + i), bearer(KEY))));
    codes.push(answers.map((a) => a.body.success === true ? 'ok' : a.body.metadata?.errors?.[0]?.code ?? 'unknown'));
    const paid = answers.filter((a) => a.body.success === true && a.body.repaired.status === 'paid').length;
    if (paid !== answers.length) t.fail(`round ${round}: ${answers.length - paid} answers not repaired to "paid"`);
  }
  t.same(codes.flat().filter((c) => c !== 'ok'), [], 'every request is served (none SERVICE_UNAVAILABLE), the first round too');
  const ran = await executions();
  t.ok(ran.pool <= 2 && ran.inline >= 8 * 50 - 2, `${ran.inline} inline, ${ran.pool} in the pool: compiled in the pool once, then inline`);
});

// A hostile schema at a streaming `start` fails that call only: an 800-branch anyOf (about 150 KB,
// seconds to compile) is refused up front by the complexity budget, and a schema whose compile
// overruns does so in the batch pool, never in the streaming worker, so other tenants' sessions on
// the one streaming worker survive and keep answering, and the worker is never replaced. The test
// hooks' sleep marker stands for a compile that overruns TASK_TIMEOUT_MS (worker-test-hooks.ts).
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const VICTIM = 'hostile-schema-victim';
const ATTACKER = 'hostile-schema-attacker';
const server = await startServer(t, {
  API_KEYS: `${VICTIM}:free,${ATTACKER}:pro`, WORKERS: '1', TASK_TIMEOUT_MS: '2000', JSONMEND_TEST_HOOKS: '1',
});
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

/** `n` object branches told apart by a `const`, as a generated tool schema would be. */
function wideAnyOf(n: number): unknown {
  return {
    anyOf: Array.from({ length: n }, (_, i) => ({
      type: 'object',
      properties: { kind: { const: `kind_${i}` }, [`field_${i}`]: { type: 'string', minLength: 1 }, n: { type: 'integer', minimum: i }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['kind', 'n'],
      additionalProperties: false,
    })),
  };
}

const victimId = (await postJson(at('start'), {}, bearer(VICTIM))).body.session_id as string;
let pushed = 0;
async function victimStillAnswers(t: { equal(a: unknown, b: unknown, m?: string): unknown }, label: string): Promise<void> {
  const answer = await postJson(at('push'), { session_id: victimId, chunk: pushed++ === 0 ? '[1' : `, ${pushed}` }, bearer(VICTIM));
  t.equal(answer.body.state?.brace_depth, 1, `${label}: the other tenant's session still answers`);
}

t.test('an 800-branch anyOf is refused at start with SCHEMA_TOO_COMPLEX, in both contracts', async (t) => {
  await victimStillAnswers(t, 'before');
  const schema = wideAnyOf(800);
  t.ok(JSON.stringify(schema).length > 150_000, 'about 190 KB of schema');
  const envelope = await postJson(at('start'), { schema }, bearer(ATTACKER));
  t.match(envelope.body, { success: false, metadata: { errors: [{ code: 'SCHEMA_TOO_COMPLEX', severity: 'critical', recoverable: false, message: /more than 128 anyOf\/oneOf members/, field: '/anyOf' }] } });
  const compact = await postJson(at('start'), { sessionId: '5d0c2f8e-4a51-4c1e-9f3b-7c2a1e0d9b64', schema }, bearer(ATTACKER));
  t.match(compact.body, { valid: false, errors: [{ code: 'SCHEMA_TOO_COMPLEX' }] });
  await victimStillAnswers(t, 'after');
  t.equal(await metric('jsonmend_stream_worker_restarts_total'), 0, 'the streaming worker was never replaced');
});

t.test('a schema within the budget opens, once compiled in the pool; a bad one fails its start only', async (t) => {
  // Small: with TASK_TIMEOUT_MS=2000 a session's schema may take 200 ms to compile, on a busy machine too.
  // (Before the overrun below, whose pool worker is replaced: a booting worker's time counts against the deadline.)
  const schema = wideAnyOf(4);
  const opened = await postJson(at('start'), { schema }, bearer(ATTACKER));
  t.type(opened.body.session_id, 'string', `opened ${JSON.stringify(opened.body.metadata?.errors ?? [])}`);
  const again = await postJson(at('start'), { schema }, bearer(ATTACKER));
  t.type(again.body.session_id, 'string', 'the same schema again: opened (remembered, no pool hop)');
  const pushedOk = await postJson(at('push'), { session_id: opened.body.session_id, chunk: '{"kind": "kind_3", "n": "5"}' }, bearer(ATTACKER));
  t.equal(pushedOk.body.state.json_parseable, true);
  const done = await postJson(at('finalize'), { session_id: opened.body.session_id }, bearer(ATTACKER));
  t.same(done.body.repaired, { kind: 'kind_3', n: 5 }, 'the schema applies at finalize');
  const bad = await postJson(at('start'), { schema: { type: 'object', properties: { a: { pattern: '(?<=x)y' } } } }, bearer(ATTACKER));
  t.match(bad.body.metadata.errors[0], { code: 'INVALID_REQUEST', message: /Invalid schema/ });
});

t.test('a schema whose compile overruns fails its own start in the pool, not the streaming worker', async (t) => {
  const schema = { type: 'object', description: '__JSONMEND_TEST_SLEEP_MS=6000__', properties: { a: { type: 'integer' } } };
  const started = performance.now();
  const answer = await postJson(at('start'), { schema }, bearer(ATTACKER));
  t.match(answer.body.metadata.errors[0], { code: 'SCHEMA_TOO_COMPLEX', message: /did not finish in time/ });
  t.ok(performance.now() - started >= 2_000, 'refused once the pool deadline (TASK_TIMEOUT_MS) passed');
  await victimStillAnswers(t, 'after the overrun');
  t.equal(await metric('jsonmend_stream_worker_restarts_total'), 0, 'the streaming worker was never replaced');
  const finalized = await postJson(at('finalize'), { session_id: victimId }, bearer(VICTIM));
  t.equal(finalized.body.success, true, 'the other tenant finalizes its session');
  t.same(finalized.body.repaired, Array.from({ length: pushed }, (_, i) => i + 1), 'with every chunk it pushed');
});

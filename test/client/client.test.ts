// jsonmend/client against the real server: every method, and the one failure rule — a repair that
// ran and failed resolves with `success: false`; refusals and transport failures throw JsonmendError.
import t from 'tap';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { Jsonmend, JsonmendError, type StreamState } from 'jsonmend/client';
import { startServer } from '../helpers/start-server.js';

const KEY = generateApiKey();
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
};

t.test('repair: the envelope, with a schema and a mode', async (t) => {
  const strict = await jm.repair('Sure:\n```json\n{name: "Ada", age: "36", extra: 1,\n```', { schema: PERSON });
  t.equal(strict.success, true);
  t.same(strict.repaired, { name: 'Ada', age: 36 }, 'coerced, and the undeclared member removed (strict)');
  t.ok(strict.metadata.schema_repairs.length > 0);
  const lenient = await jm.repair('{name: "Ada", age: 36, extra: 1}', { schema: PERSON, mode: 'lenient' });
  t.same(lenient.repaired, { name: 'Ada', age: 36, extra: 1 });
});

t.test('a repair that ran and failed resolves with success: false (no throw)', async (t) => {
  const syntax = await jm.repair('there is no JSON in this reply');
  t.equal(syntax.success, false);
  t.equal(syntax.repaired, null);
  t.equal(syntax.metadata.errors[0]!.code, 'UNRECOVERABLE_SYNTAX_ERROR');
  const schema = await jm.repair('{"name": "Ada"}', { schema: PERSON });
  t.equal(schema.success, false);
  t.equal(schema.metadata.errors[0]!.code, 'SCHEMA_VALIDATION_FAILED');
});

t.test('service errors throw JsonmendError with code, recoverable, status and the X-Request-ID', async (t) => {
  const stranger = new Jsonmend({ apiKey: generateApiKey(), baseUrl: server.url });
  const error = await stranger.repair('{"a":1}').then(() => null, (e: unknown) => e);
  t.ok(error instanceof JsonmendError);
  const e = error as JsonmendError;
  t.equal(e.code, 'INVALID_API_KEY');
  t.equal(e.recoverable, false);
  t.equal(e.status, 200);
  t.match(e.requestId, /^[A-Za-z0-9._:-]+$/);
  t.equal(e.error?.severity, 'critical');
  t.equal(e.attempts, 1, 'a non-recoverable error is never retried');

  const invalid = await jm.repair('{"a":1}', { mode: 'sloppy' as never }).then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(invalid?.code, 'INVALID_REQUEST');
  t.match(invalid?.message, /mode/);

  const tooLarge = await jm.repair('x'.repeat(5 * 1024 * 1024 + 1)).then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(tooLarge?.code, 'PAYLOAD_TOO_LARGE');

  const unknown = await new Jsonmend({ apiKey: KEY, baseUrl: `${server.url}/nowhere` }).repair('{}').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(unknown?.code, 'NOT_FOUND');
  t.equal(unknown?.status, 404);
});

t.test('demoRepair needs no key and answers the demo envelope', async (t) => {
  const keyless = new Jsonmend({ baseUrl: server.url });
  const answer = await keyless.demoRepair("{'a': 1,");
  t.equal(answer.success, true);
  t.same(answer.repaired, { a: 1 });
  t.equal(answer.demo, true);
  t.type(answer.message, 'string');
  const refused = await keyless.repair('{}').then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(refused?.code, 'INVALID_API_KEY', 'the keyed endpoint without a key');
});

t.test('startStream, push, finalize: states without the echoed buffer unless asked; finalize equals batch', async (t) => {
  const text = '{"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, note: \'x\'}';
  const chunks = [text.slice(0, 9), text.slice(9, 30), text.slice(30)];
  const s = await jm.startStream({ mode: 'lenient' });
  t.match(s.id, /^[A-Za-z0-9_-]{22}$/);
  t.ok(s.expiresAt > Date.now());
  const states: StreamState[] = [];
  for (const chunk of chunks) states.push(await s.push(chunk));
  t.equal(states.length, 3);
  t.equal(states[0]!.buffered, undefined, 'echo_buffer: false by default');
  t.equal(states[2]!.brace_depth, 2);
  t.same(await s.finalize(), await jm.repair(text, { mode: 'lenient' }));
  const again = await s.finalize().then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(again?.code, 'SESSION_NOT_FOUND', 'a finalized session is gone');
  t.equal(again?.recoverable, true);

  const echoed = await jm.startStream({ echoBuffer: true });
  await echoed.push('[1, ');
  t.equal((await echoed.push('2')).buffered, '[1, 2');
  t.same((await echoed.finalize()).repaired, [1, 2]);
});

t.test('a stream with a schema: a bad schema fails at start; a failed finalize resolves', async (t) => {
  const bad = await jm.startStream({ schema: { type: 'nonsense' } }).then(() => null, (e: unknown) => e as JsonmendError);
  t.equal(bad?.code, 'INVALID_REQUEST');
  const s = await jm.startStream({ schema: PERSON });
  await s.push('{"name": "Ada"');
  const result = await s.finalize();
  t.equal(result.success, false);
  t.equal(result.metadata.errors[0]!.code, 'SCHEMA_VALIDATION_FAILED');
});

t.test('repairStream: an OpenAI-style async iterator of deltas; onState per chunk; the result equals batch repair', async (t) => {
  const reply = 'Here is the person:\n```json\n{"name": "Ada Lovelace", "age": 36, "langs": ["en", "fr",]\n```';
  async function* deltas(): AsyncGenerator<string> {
    for (let i = 0; i < reply.length; i += 7) {
      await new Promise((resolve) => setImmediate(resolve));
      yield reply.slice(i, i + 7);
    }
  }
  const states: StreamState[] = [];
  const result = await jm.repairStream(deltas(), { schema: PERSON, mode: 'lenient', onState: (s) => states.push(s) });
  t.equal(states.length, Math.ceil(reply.length / 7));
  t.ok(states.every((s) => s.buffered === undefined), 'repairStream never asks for the echoed buffer');
  t.same(result, await jm.repair(reply, { schema: PERSON, mode: 'lenient' }));
  t.same(result.repaired, { name: 'Ada Lovelace', age: 36, langs: ['en', 'fr'] });

  const fromArray = await jm.repairStream(['[1,', '', ' 2']);
  t.same(fromArray.repaired, [1, 2], 'a plain iterable; empty chunks are skipped');
  const nothing = await jm.repairStream(['no json', ' at all']);
  t.equal(nothing.success, false, 'a stream that holds no JSON resolves with success: false');
});

t.test('options are checked once, in the constructor', async (t) => {
  t.throws(() => new Jsonmend({ maxRetries: -1 }), RangeError);
  t.throws(() => new Jsonmend({ maxRetries: 1.5 }), RangeError);
  t.throws(() => new Jsonmend({ timeoutMs: 0 }), RangeError);
  t.throws(() => new Jsonmend({ apiKey: '' }), TypeError);
});

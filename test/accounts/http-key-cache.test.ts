// A key created while the server runs (here by another process writing the same SQLite file, as
// `npm run key` does) works on its very first request, in both repair routes and GET /v1/usage,
// without waiting for the background refresh; unknown keys are asked about with probes that are
// shared and spaced, and a repeated unknown key is refused from the negative cache.
import t from 'tap';
import { displayPrefix, hashApiKey, newKeyId } from '../../server/accounts/api-key.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { openStorage, tempDataDir } from './helpers.js';
import { errorCodeOf, newKey, repairAs, usageOf } from './http-helpers.js';

const dataDir = tempDataDir(t);
const server = await startServer(t, { DATA_DIR: dataDir });
const url = server.url;
const storage = openStorage(t, dataDir);

async function createKey(tier: 'free' | 'pro' = 'free'): Promise<string> {
  const key = newKey();
  await storage.createKey({ id: newKeyId(), hash: hashApiKey(key), prefix: displayPrefix(key), name: 'cache test', tier, createdAt: Date.now() });
  return key;
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

t.test('a key created a moment ago is accepted on its first request', async (t) => {
  // The background refresh runs every 500 ms: ten keys each used at once would almost all miss it.
  for (let i = 0; i < 10; i++) {
    const key = await createKey();
    const first = await repairAs(url, key, { raw_output: '{"a": 1,}' });
    t.equal(errorCodeOf(first), undefined, `key ${i}: served on its first request`);
    t.same(first.body.repaired, { a: 1 });
  }
  const compactKey = await createKey('pro');
  const compact = await repairAs(url, compactKey, { content: '[1, 2' });
  t.match(compact.body, { valid: true, repaired: '[1,2]' }, 'compact contract too');
  const usageKey = await createKey();
  const usage = await usageOf(url, usageKey);
  t.match(usage.body, { tier: 'free', count: 0 }, 'GET /v1/usage knows it at once');
  const streamKey = await createKey();
  const started = await postJson(`${url}/v1/repair/stream/start`, {}, bearer(streamKey));
  t.type(started.body.session_id, 'string', 'a streaming start knows it at once');
});

t.test('unknown keys: refused, probes shared and spaced, a repeat costs no probe', async (t) => {
  const before = await metric('jsonmend_key_store_miss_probes_total');
  // 200 different random keys at once: the database is asked a handful of times, not 200.
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 200 }, () => repairAs(url, newKey(), { raw_output: '{}' })));
  const elapsedMs = performance.now() - started;
  t.ok(answers.every((a) => errorCodeOf(a) === 'INVALID_API_KEY'), 'all refused');
  const probes = (await metric('jsonmend_key_store_miss_probes_total')) - before;
  // Probes start at least 25 ms apart, however the 200 requests are spread over time.
  t.ok(probes >= 1 && probes <= Math.min(100, 2 + elapsedMs / 25), `${probes} storage probes for 200 unknown keys in ${elapsedMs.toFixed(0)} ms`);

  const wrong = newKey();
  t.equal(errorCodeOf(await repairAs(url, wrong, { raw_output: '{}' })), 'INVALID_API_KEY');
  const afterFirst = await metric('jsonmend_key_store_miss_probes_total');
  const hitsBefore = await metric('jsonmend_key_store_negative_hits_total');
  for (let i = 0; i < 20; i++) t.equal(errorCodeOf(await repairAs(url, wrong, { raw_output: '{}' })), 'INVALID_API_KEY');
  t.equal(errorCodeOf(await usageOf(url, wrong)), 'INVALID_API_KEY', '/v1/usage refuses it too');
  t.equal(await metric('jsonmend_key_store_miss_probes_total'), afterFirst, 'the repeated key asked storage nothing');
  t.equal((await metric('jsonmend_key_store_negative_hits_total')) - hitsBefore, 21);

  // A key refused before it existed (the negative cache holds its digest) works once it is created.
  const later = newKey();
  t.equal(errorCodeOf(await repairAs(url, later, { raw_output: '{}' })), 'INVALID_API_KEY');
  await storage.createKey({ id: newKeyId(), hash: hashApiKey(later), prefix: displayPrefix(later), name: 'later', tier: 'free', createdAt: Date.now() });
  let accepted = false;
  // A generous deadline: the refresh runs on a timer that a busy machine may delay.
  const deadline = Date.now() + 15_000;
  while (!accepted && Date.now() < deadline) accepted = errorCodeOf(await repairAs(url, later, { raw_output: '{}' })) === undefined;
  t.ok(accepted, 'accepted after the next refresh clears the negative cache');
});

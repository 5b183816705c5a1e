// Keys and usage through HTTP, against the real server and its real SQLite file: a key made by the
// CLI while the server runs works without a restart, a revoke refuses it within a second, API_KEYS
// seeds keys, GET /v1/usage counts what was served, and SIGTERM flushes the counts to disk.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashApiKey } from '../../server/accounts/api-key.js';
import { monthOf } from '../../server/accounts/quota.js';
import { SqliteStorage } from '../../server/accounts/storage/sqlite-storage.js';
import { expectRefusal, postJson, startServer } from '../helpers/start-server.js';
import { tempDataDir } from './helpers.js';
import { errorCodeOf, KEY_LINE, keyCli, lastLine, limitHeaders, newKey, repairAs, usageOf } from './http-helpers.js';
import { msUntil } from '../helpers/until.js';

const dataDir = tempDataDir(t);
const UNLIMITED = newKey();
const TEAM = newKey();
const env = { DATA_DIR: dataDir, API_KEYS: `${UNLIMITED}:unlimited,${TEAM}:team` };
const server = await startServer(t, env);
const url = server.url;

t.test('a CLI key works over HTTP without a restart; a revoke refuses it within a second', async (t) => {
  const created = await keyCli(dataDir, 'create', '--tier', 'free', '--name', 'http test');
  t.equal(created.code, 0, created.stderr);
  const key = lastLine(created.stdout);
  t.match(key, KEY_LINE);

  const acceptedAfter = await msUntil(2_000, async () => errorCodeOf(await repairAs(url, key, { raw_output: '{"a":1}' })) === undefined);
  t.ok(acceptedAfter < 1_000, `accepted ${acceptedAfter.toFixed(0)} ms after the CLI exited`);
  const served = await repairAs(url, key, { raw_output: "{a: 'x',}" });
  t.equal(served.body.success, true);
  t.same(served.body.repaired, { a: 'x' });
  t.equal(limitHeaders(served).limit, 60, 'free tier limit in X-RateLimit-Limit');

  const usage = await usageOf(url, key);
  t.equal(usage.status, 200);
  t.equal(usage.headers.get('content-type'), 'application/json');
  t.match(usage.body, { tier: 'free', month: monthOf(Date.now()), quota: 1_000, resets_at: /^\d{4}-\d\d-01T00:00:00\.000Z$/ });
  t.equal(usage.body.count, 2, 'both served repairs counted (the polling one and this one)');
  t.equal(usage.body.remaining, 998);
  t.notOk('overage' in usage.body, 'no overage fields outside the team tier');

  const revoked = await keyCli(dataDir, 'revoke', key.slice(0, 12));
  t.equal(revoked.code, 0, revoked.stderr);
  const refusedAfter = await msUntil(2_000, async () => errorCodeOf(await repairAs(url, key, { raw_output: '{}' })) === 'INVALID_API_KEY');
  t.ok(refusedAfter < 1_000, `refused ${refusedAfter.toFixed(0)} ms after the CLI exited`);
  const compact = await repairAs(url, key, { content: '{}' });
  t.equal(compact.status, 200);
  t.match(compact.body, { valid: false, errors: [{ code: 'INVALID_API_KEY', severity: 'critical', recoverable: false }] });
  t.equal(compact.headers.get('x-ratelimit-limit'), null, 'no limit headers for a refused key');
  t.equal(errorCodeOf(await usageOf(url, key)), 'INVALID_API_KEY', '/v1/usage refuses it too');
});

t.test('GET /v1/usage: what counts, the team overage fields, unlimited has no quota', async (t) => {
  const before = (await usageOf(url, TEAM)).body.count;
  await repairAs(url, TEAM, { raw_output: '[1, 2,' });
  await repairAs(url, TEAM, { content: '{"x": tru' });
  await repairAs(url, TEAM, { raw_output: 'no json here at all' }); // reached the engine: counts
  const invalid = await repairAs(url, TEAM, { raw_output: '{}', shcema: {} });
  t.equal(errorCodeOf(invalid), 'INVALID_REQUEST', 'refused before the engine: not counted');
  const team = await usageOf(url, TEAM);
  t.match(team.body, { tier: 'team', quota: 1_000_000, overage: 0, overage_cost_usd: 0 });
  t.equal(team.body.count - before, 3);
  t.equal(team.body.remaining, 1_000_000 - team.body.count);
  t.equal(team.headers.get('x-ratelimit-limit'), '1000', 'usage reports the key\'s limit');
  const again = await usageOf(url, TEAM);
  t.ok(Number(again.headers.get('x-ratelimit-remaining')) >= Number(team.headers.get('x-ratelimit-remaining')),
    'asking for usage is not rate limited: it uses none of the limit');

  // A streaming session counts once, at its start, whatever its number of pushes.
  const stream = (step: string, body: unknown) => postJson(`${url}/v1/repair/stream/${step}`, body, { authorization: `Bearer ${TEAM}` });
  const started = await stream('start', {});
  t.type(started.body.session_id, 'string', 'session opened');
  t.equal(limitHeaders(started).limit, 1_000, 'streaming answers carry the tier limit headers');
  for (const chunk of ['{"a": 1', ', "b": [2']) t.ok((await stream('push', { session_id: started.body.session_id, chunk })).body.state);
  t.same((await stream('finalize', { session_id: started.body.session_id })).body.repaired, { a: 1, b: [2] });
  t.equal((await usageOf(url, TEAM)).body.count, team.body.count + 1, 'one session: one repair');

  const unlimited = await usageOf(url, UNLIMITED);
  t.match(unlimited.body, { tier: 'unlimited', quota: null, remaining: null });
  const served = await repairAs(url, UNLIMITED, { raw_output: '{"a":1}' });
  t.equal(served.body.success, true);
  t.equal(served.headers.get('x-ratelimit-limit'), null, 'the unlimited tier sends no limit headers');

  for (const authorization of [undefined, 'Bearer sk_live_nope', 'Basic abc']) {
    const response = await fetch(`${url}/v1/usage`, { headers: authorization === undefined ? {} : { authorization } });
    const body = JSON.parse(await response.text());
    t.equal(response.status, 200);
    t.equal(body.metadata?.errors?.[0]?.code, 'INVALID_API_KEY', `refused: ${authorization ?? 'no header'}`);
  }
  const post = await fetch(`${url}/v1/usage`, { method: 'POST', headers: { authorization: `Bearer ${TEAM}` } });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD');
});

t.test('SIGTERM flushes usage and last-used times; a restart serves the same counts', async (t) => {
  const teamCount = (await usageOf(url, TEAM)).body.count;
  t.same(await server.stop('SIGTERM'), { code: 0, signal: null });
  const storage = new SqliteStorage({ dataDir });
  const stored = await storage.findKeyByHash(hashApiKey(TEAM));
  t.ok(stored?.lastUsedAt, 'last used time written');
  t.equal(await storage.getMonthlyUsage(stored!.id, monthOf(Date.now())), teamCount, 'usage on disk after shutdown');
  await storage.close();

  const again = await startServer(t, env);
  t.equal((await usageOf(again.url, TEAM)).body.count, teamCount, 'loaded at start');
  t.equal((await repairAs(again.url, TEAM, { raw_output: '{}' })).body.success, true, 'seeding again is harmless');
  t.equal((await usageOf(again.url, TEAM)).body.count, teamCount + 1);
});

t.test('a DATA_DIR that cannot hold the database stops the start, naming it', async (t) => {
  const file = join(tempDataDir(t), 'a-file');
  writeFileSync(file, '');
  const refused = await expectRefusal({ DATA_DIR: join(file, 'data') });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /cannot open the accounts database in DATA_DIR \(.*a-file\/data\)/);
  t.notMatch(refused.stdout, /listening on/);
});

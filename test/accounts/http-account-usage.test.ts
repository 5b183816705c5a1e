// Usage and limits belong to the account, not the key: a console user who revokes a key and makes
// a new one keeps this month's count, the quota and the per-minute rate are shared by all the
// account's keys, and past the quota every key of the account gets degraded service (the free
// tier's 5 requests a minute, with QUOTA_EXCEEDED), whichever key it uses. Real server, real HTTP.
import t from 'tap';
import { monthOf } from '../../server/accounts/quota.js';
import { ConsoleClient, startWebServer } from '../web/helpers.js';
import { openStorage } from './helpers.js';
import { errorCodeOf, limitHeaders, repairAs, usageOf } from './http-helpers.js';
import { msUntil } from '../helpers/until.js';

const { url, dataDir } = await startWebServer(t);
const storage = openStorage(t, dataDir);
const EMAIL = 'rotator@example.com';
const client = new ConsoleClient(url);
await client.start();
const signup = await client.send('POST', 'signup', { email: EMAIL, password: 'a long and unusual passphrase' });
t.equal(signup.status, 201, signup.status === 201 ? 'signed up' : JSON.stringify(signup.body));
const userId = (await storage.findUserByEmail(EMAIL))!.id;

async function newConsoleKey(name: string): Promise<{ key: string; id: string }> {
  const created = await client.send('POST', 'keys', { name });
  t.equal(created.status, 201, created.status === 201 ? `key "${name}" created` : JSON.stringify(created.body));
  return { key: created.body.key, id: created.body.record.id };
}

async function revoke(id: string): Promise<void> {
  t.equal((await client.send('POST', 'keys/revoke', { id })).status, 200);
}

t.test('rotating a key keeps the month\'s count; the rate is the account\'s', async (t) => {
  const first = await newConsoleKey('first');
  for (let i = 0; i < 3; i++) t.equal((await repairAs(url, first.key, { raw_output: `[${i},` })).body.success, true);
  t.equal((await usageOf(url, first.key)).body.count, 3);
  await revoke(first.id);
  const second = await newConsoleKey('second');
  const usage = await usageOf(url, second.key);
  t.match(usage.body, { tier: 'free', count: 3, quota: 1_000, remaining: 997 }, 'the new key reports the account\'s usage');
  const consoleUsage = await client.send('GET', 'usage');
  t.equal(consoleUsage.body.count, 3, 'the console shows the same');
  t.same(consoleUsage.body.keys.map((k: { count: number }) => k.count), [3, 0], 'and each key\'s share');

  // Two keys at once: one bucket gives two different Remaining values (x and x - 1); a bucket per
  // key would give each of them a fresh 59.
  const third = await newConsoleKey('third');
  const [a, b] = (await Promise.all([second, third].map((k) => repairAs(url, k.key, { raw_output: '{}' })))).map(limitHeaders);
  t.same([a!.limit, b!.limit], [60, 60]);
  t.not(a!.remaining, b!.remaining, `one 60/min rate for both keys (Remaining ${a!.remaining} and ${b!.remaining})`);
  t.equal((await usageOf(url, third.key)).body.count, 5);
});

t.test('past the quota, every key of the account is degraded, a new one too', async (t) => {
  const keys = (await client.send('GET', 'keys')).body.keys.filter((k: { revoked_at: string | null }) => k.revoked_at === null);
  t.equal(keys.length, 2);
  // Another process sharing the database used the rest of the quota; the next usage sync sees it.
  await storage.addMonthlyUsage([{ keyId: userId, month: monthOf(Date.now()), count: 1_000 }]);
  const current = await newConsoleKey('after the quota');
  const seenAfter = await msUntil(3_000, async () => (await usageOf(url, current.key)).body.remaining === 0);
  t.ok(seenAfter < 3_000, `quota use seen after ${seenAfter.toFixed(0)} ms`);

  const degraded = await repairAs(url, current.key, { raw_output: '{"a":1}' });
  t.equal(degraded.body.success, true, 'still served');
  t.match(degraded.body.metadata.warnings, [{ code: 'QUOTA_EXCEEDED' }]);
  t.equal(limitHeaders(degraded).limit, 5, 'at the degraded rate of 5 a minute');

  // Rotating again gives nothing back.
  for (const k of keys) await revoke(k.id);
  const fresh = await newConsoleKey('fresh');
  const again = await repairAs(url, fresh.key, { raw_output: '{"a":1}' });
  t.match(again.body.metadata.warnings, [{ code: 'QUOTA_EXCEEDED' }], 'a brand-new key is past the quota too');
  t.equal(limitHeaders(again).limit, 5);
  let served = 2;
  while (served < 60 && errorCodeOf(await repairAs(url, fresh.key, { raw_output: '{}' })) !== 'RATE_LIMIT_EXCEEDED') served++;
  t.ok(served <= 6, `refused after ${served} degraded requests in the minute, not 60`);
  const refused = await repairAs(url, current.key, { content: '{}' });
  t.equal(refused.status, 429, 'the other key of the account is refused too');
  t.match(refused.body.error, /this account's keys together allow the degraded rate of 5 requests per minute/);
});

// The assembled layer as the server will use it: open (migrate, seed API_KEYS, load usage),
// serve from memory, close (flush everything), reopen and find it all.
import t from 'tap';
import { Accounts, newKeyAdmissionDecision } from '../../server/accounts/index.js';
import { loadConfig } from '../../server/config/load-config.js';
import { ManualClock } from '../../server/accounts/clock.js';
import { SqliteStorage } from '../../server/accounts/storage/sqlite-storage.js';
import { tempDataDir } from './helpers.js';

const T0 = Date.UTC(2025, 8, 20, 15, 30, 0);

t.test('open, serve from memory, close flushes; a reopen sees it all', async (t) => {
  const dataDir = tempDataDir(t);
  const clock = new ManualClock(T0);
  const errors: unknown[] = [];
  const accounts = await Accounts.open({
    dataDir, clock, apiKeys: loadConfig({ API_KEYS: 'free-seed-key-1:free,ops-seed-key:unlimited' }).apiKeys,
    onError: (e) => errors.push(e),
  });
  accounts.start();
  t.same(accounts.seeded.map((s) => s.outcome), ['inserted', 'inserted']);
  const record = accounts.keys.lookup('free-seed-key-1');
  t.equal(record?.tier, 'free');
  t.equal(accounts.keys.lookup('nope'), undefined);
  const a = newKeyAdmissionDecision();
  for (let i = 0; i < 5; i++) {
    accounts.admission.admit(record!, a);
    accounts.quota.record(record!.id);
    accounts.metadata.record({
      keyId: record!.id, endpoint: '/v1/repair', contract: 'envelope', success: true, errorCode: null,
      confidence: 'high', repairCounts: { closed_string: 1 }, inputBytes: 12, latencyMs: 0.4,
    });
  }
  t.equal(a.remaining, 55);
  t.same(accounts.quota.usageFor(record!), { tier: 'free', month: '2025-09', count: 5, quota: 1_000, remaining: 995, resets_at: '2025-10-01T00:00:00.000Z' });
  const ip = accounts.demo.check('203.0.113.9');
  t.equal(ip.remaining, 9);
  await accounts.close();
  t.same(errors, []);

  const storage = new SqliteStorage({ dataDir });
  t.teardown(() => storage.close());
  t.equal(await storage.getMonthlyUsage(record!.id, '2025-09'), 5);
  t.equal(await storage.countMetadata(), 5);
  t.equal((await storage.listKeys()).find((k) => k.id === record!.id)?.lastUsedAt, T0);

  const again = await Accounts.open({ dataDir, clock, apiKeys: [{ key: 'free-seed-key-1', tier: 'free' }] });
  t.teardown(() => again.close());
  t.same(again.seeded.map((s) => s.outcome), ['unchanged']);
  t.equal(again.keys.lookup('free-seed-key-1')?.id, record!.id, 'same key id across restarts');
  t.equal(again.keys.lookup('ops-seed-key')?.tier, 'unlimited', 'keys persist without API_KEYS');
  t.equal(again.quota.usageFor(record!).count, 5, 'usage loaded at open');
});

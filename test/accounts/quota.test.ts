import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { KeyAdmission, newKeyAdmissionDecision } from '../../server/accounts/key-admission.js';
import { ManualClock } from '../../server/accounts/clock.js';
import type { KeyRecord } from '../../server/accounts/key-store.js';
import type { TierName } from '../../server/config/tiers.js';
import { QuotaTracker } from '../../server/accounts/quota.js';
import { RateLimiter } from '../../server/accounts/rate-limiter.js';
import { TIERS } from '../../server/config/tiers.js';
import { dbPathFor } from '../../server/accounts/storage/sqlite-storage.js';
import { openStorage, tempDataDir } from './helpers.js';

const T0 = Date.UTC(2025, 5, 10, 8, 0, 0); // 2025-06

function setup(t: Test, clock = new ManualClock(T0), dataDir = tempDataDir(t)) {
  const storage = openStorage(t, dataDir);
  const quota = new QuotaTracker({ storage, clock });
  const limiter = new RateLimiter({ clock });
  const admission = new KeyAdmission({ limiter, quota });
  return { clock, storage, quota, limiter, admission };
}
const key = (id: string, tier: TierName): KeyRecord => ({ id, tier, prefix: 'sk_live_test', accountId: id });

t.test('the tier table matches the spec and docs/design.md', async (t) => {
  t.same(Object.values(TIERS).map((x) => [x.name, x.perMinute, x.monthlyQuota, x.overage]), [
    ['free', 60, 1_000, 'degraded'],
    ['pro', 300, 100_000, 'degraded'],
    ['team', 1_000, 1_000_000, 'billed'],
    ['scale', 1_000, 1_000_000, 'degraded'],
    ['unlimited', null, null, 'none'],
  ]);
  t.equal(TIERS.team.overageUsdPer1k, 0.3);
  t.same(Object.values(TIERS).map((x) => [x.name, x.degradedPerMinute, x.streamSessions]), [
    ['free', 5, 5], ['pro', 30, 25], ['team', null, 100], ['scale', 100, 250], ['unlimited', null, null],
  ], 'degraded rates and open streaming sessions (docs/accounts.md)');
  t.same(Object.values(TIERS).map((x) => x.streamPushesPerSecond), [200, 1_000, 3_000, 3_000, null], 'pushes per second per account (docs/streaming.md)');
});

t.test('usage is counted in memory and written in batches', async (t) => {
  const { storage, quota } = setup(t);
  for (let i = 0; i < 25; i++) quota.record('key_a');
  quota.record('key_b', 3);
  t.equal(quota.count('key_a'), 25);
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 0, 'nothing written per request');
  await quota.flush();
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 25);
  t.equal(await storage.getMonthlyUsage('key_b', '2025-06'), 3);
  quota.record('key_a');
  await quota.flush();
  await quota.flush();
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 26, 'deltas, not totals; an empty flush adds nothing');
});

t.test('counts survive a restart and converge across processes sharing the file', async (t) => {
  const dataDir = tempDataDir(t);
  const clock = new ManualClock(T0);
  const a = setup(t, clock, dataDir);
  const b = setup(t, clock, dataDir);
  a.quota.record('key_x', 10);
  b.quota.record('key_x', 5);
  await a.quota.flush();
  await b.quota.flush();
  t.equal(b.quota.count('key_x'), 15, 'b re-read the total after its flush');
  await a.quota.flush();
  t.equal(a.quota.count('key_x'), 15);
  const restarted = setup(t, clock, dataDir);
  await restarted.quota.load();
  t.equal(restarted.quota.count('key_x'), 15);
});

t.test('a flush that finds the database locked keeps its deltas for the next one', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir, 0);
  const quota = new QuotaTracker({ storage, clock: new ManualClock(T0) });
  quota.record('key_a', 4);
  // Another process holds the write lock (as a long CLI transaction or a stuck writer would).
  const locker = new Database(dbPathFor(dataDir));
  locker.exec('BEGIN IMMEDIATE');
  await t.rejects(quota.flush(), /locked|busy/i);
  t.equal(quota.count('key_a'), 4, 'still counted in memory');
  quota.record('key_a', 1);
  locker.exec('COMMIT');
  locker.close();
  await quota.flush();
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 5, 'written once, nothing lost or doubled');
  await quota.flush();
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 5);
});

t.test('a flush that failed is sent again under the same batch id, new counts under another', async (t) => {
  const storage = openStorage(t);
  const sent: Array<{ id: string | undefined; total: number }> = [];
  let fail = true;
  const recording = {
    loadMonthlyUsage: (month: string) => storage.loadMonthlyUsage(month),
    addMonthlyUsage: async (batch: Array<{ keyId: string; month: string; count: number }>, id?: string) => {
      sent.push({ id, total: batch.reduce((n, d) => n + d.count, 0) });
      if (fail) throw new Error('query timed out');
      return storage.addMonthlyUsage(batch, id);
    },
  } as unknown as typeof storage;
  const quota = new QuotaTracker({ storage: recording, clock: new ManualClock(T0) });
  quota.record('key_a', 3);
  await t.rejects(quota.flush(), /timed out/);
  fail = false;
  quota.record('key_a', 2);
  await quota.flush();
  t.equal(sent.length, 3, 'the failed batch again, then the new counts');
  t.ok(sent[0]!.id !== undefined && sent[1]!.id === sent[0]!.id, 'the retry carries the first id: the database adds it at most once');
  t.ok(sent[2]!.id !== undefined && sent[2]!.id !== sent[0]!.id, 'counts made after it have their own id');
  t.same(sent.map((s) => s.total), [3, 3, 2]);
  t.equal(await storage.getMonthlyUsage('key_a', '2025-06'), 5);
});

for (const tier of ['free', 'pro', 'scale'] as const) {
  t.test(`${tier}: past the quota, degraded service (a tenth of the rate + QUOTA_EXCEEDED)`, async (t) => {
    const { quota, admission, clock } = setup(t);
    const k = key(`key_${tier}`, tier);
    const quotaSize = TIERS[tier].monthlyQuota!;
    quota.record(k.id, quotaSize - 1);
    const a = newKeyAdmissionDecision();
    admission.admit(k, a);
    t.same(a, { allowed: true, limit: TIERS[tier].perMinute, remaining: TIERS[tier].perMinute! - 1, resetSeconds: Math.ceil((T0 + 60_000 / TIERS[tier].perMinute!) / 1000), retryAfterSeconds: 0, limited: true, quotaExceeded: false });
    quota.record(k.id); // the quota-th repair
    clock.advance(60_000);
    admission.admit(k, a);
    t.equal(a.allowed, true);
    t.equal(a.quotaExceeded, true, 'served with the QUOTA_EXCEEDED warning');
    const degraded = { free: 5, pro: 30, scale: 100 }[tier];
    t.equal(TIERS[tier].degradedPerMinute, degraded);
    t.equal(a.limit, degraded, 'X-RateLimit-Limit shows the degraded rate');
    let allowed = 1;
    for (let i = 0; i < 400; i++) if (admission.admit(k, a).allowed) allowed++;
    t.equal(allowed, degraded, `at most ${degraded} in the minute`);
    t.equal(a.allowed, false);
    t.equal(a.retryAfterSeconds, Math.ceil(60 / degraded), 'one interval of the degraded rate');
    t.same(quota.usageFor(k), {
      tier, month: '2025-06', count: quotaSize, quota: quotaSize, remaining: 0, resets_at: '2025-07-01T00:00:00.000Z',
    });
  });
}

t.test('team: overage is counted for billing, not degraded', async (t) => {
  const { quota, admission } = setup(t);
  const k = key('key_team', 'team');
  quota.record(k.id, 1_000_000 + 2_500);
  const a = admission.admit(k, newKeyAdmissionDecision());
  t.equal(a.quotaExceeded, false);
  t.equal(a.limit, 1_000);
  t.same(quota.usageFor(k), {
    tier: 'team', month: '2025-06', count: 1_002_500, quota: 1_000_000, remaining: 0,
    resets_at: '2025-07-01T00:00:00.000Z', overage: 2_500, overage_cost_usd: 0.75,
  });
  t.same(quota.usageFor(key('key_team2', 'team')).overage, 0);
});

t.test('unlimited: no rate limit, no quota, still counted', async (t) => {
  const { quota, admission, limiter } = setup(t);
  const k = key('key_ops', 'unlimited');
  quota.record(k.id, 5_000_000);
  const a = newKeyAdmissionDecision();
  for (let i = 0; i < 10_000; i++) {
    if (!admission.admit(k, a).allowed) { t.fail(`refused at ${i}`); return; }
  }
  t.equal(a.limited, false, 'no X-RateLimit headers');
  t.equal(a.quotaExceeded, false);
  t.equal(limiter.size, 0, 'never enters the limiter table');
  t.same(quota.usageFor(k), { tier: 'unlimited', month: '2025-06', count: 5_000_000, quota: null, remaining: null, resets_at: '2025-07-01T00:00:00.000Z' });
});

t.test('the month rolls over at UTC midnight of the 1st', async (t) => {
  const clock = new ManualClock(Date.UTC(2025, 11, 31, 23, 59, 59));
  const { quota, admission, storage } = setup(t, clock);
  const k = key('key_f', 'free');
  quota.record(k.id, 1_000);
  t.equal(admission.admit(k, newKeyAdmissionDecision()).quotaExceeded, true);
  t.equal(quota.usageFor(k).resets_at, '2026-01-01T00:00:00.000Z');
  clock.set(Date.UTC(2026, 0, 1, 0, 0, 0));
  t.equal(admission.admit(k, newKeyAdmissionDecision()).quotaExceeded, false, 'fresh quota');
  t.same(quota.usageFor(k), { tier: 'free', month: '2026-01', count: 0, quota: 1_000, remaining: 1_000, resets_at: '2026-02-01T00:00:00.000Z' });
  quota.record(k.id, 2);
  await quota.flush();
  t.equal(await storage.getMonthlyUsage(k.id, '2025-12'), 1_000, 'December still written after the roll');
  t.equal(await storage.getMonthlyUsage(k.id, '2026-01'), 2);
});

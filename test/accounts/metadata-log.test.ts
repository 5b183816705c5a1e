import t from 'tap';
import Database from 'better-sqlite3';
import { newKeyId } from '../../server/accounts/api-key.js';
import { ManualClock } from '../../server/accounts/clock.js';
import { MetadataLog, repairCountsOf, type MetadataEntry } from '../../server/accounts/metadata/metadata-log.js';
import { METADATA_RETENTION_MS, RetentionJob } from '../../server/accounts/metadata/retention.js';
import { dbPathFor } from '../../server/accounts/storage/sqlite-storage.js';
import type { AccountsStorage } from '../../server/accounts/storage/accounts-storage.js';
import { openStorage, sleep, tempDataDir } from './helpers.js';
import { msUntil } from '../helpers/until.js';

const T0 = Date.UTC(2025, 6, 1, 12, 0, 0);
const DAY = 86_400_000;

function entry(over: Partial<MetadataEntry> = {}): MetadataEntry {
  return {
    keyId: null, endpoint: '/v1/repair', contract: 'envelope', success: true, errorCode: null,
    confidence: 'high', repairCounts: null, inputBytes: 10, latencyMs: 1.5, ...over,
  };
}

/** Counts calls to a real storage (every call still reaches SQLite). */
function counting(storage: AccountsStorage): { storage: AccountsStorage; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const proxy = new Proxy(storage, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { storage: proxy, calls };
}

function rows(path: string): Array<Record<string, unknown>> {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT * FROM request_log ORDER BY id').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

t.test('rows are batched: full batches are written at once, batchRows per transaction', async (t) => {
  const real = openStorage(t);
  const { storage, calls } = counting(real);
  const log = new MetadataLog({ storage, clock: new ManualClock(T0), batchRows: 50, flushIntervalMs: 60_000, onError: (e) => t.error(e) });
  const e = entry();
  for (let i = 0; i < 49; i++) { e.latencyMs = i; log.record(e); } // one object reused: record copies
  await sleep(20);
  t.equal(calls['insertMetadata'], undefined, 'below batchRows and no timer: nothing written');
  t.equal(log.pending, 49);
  for (let i = 49; i < 120; i++) { e.latencyMs = i; log.record(e); }
  t.equal(calls['insertMetadata'], undefined, 'never written inside record()');
  // Written off the record() call: wait for the writes, not a fixed time (a busy machine is slower).
  await msUntil(10_000, async () => (calls['insertMetadata'] ?? 0) >= 2);
  t.equal(calls['insertMetadata'], 2, 'full batches are written at once: 2 transactions of 50');
  t.equal(log.pending, 20, 'the remainder waits for the timer (or a flush) instead of leaving as a small batch');
  t.equal(await log.flush(), 20);
  t.equal(calls['insertMetadata'], 3);
  t.equal(await real.countMetadata(), 120);
  t.equal(log.pending, 0);
  t.same(rows(real.path).map((r) => r['latency_ms']), Array.from({ length: 120 }, (_, i) => i), 'in order, each its own values');
});

t.test('the timer flushes every N ms; close() flushes the rest', async (t) => {
  const storage = openStorage(t);
  const log = new MetadataLog({ storage, clock: new ManualClock(T0), flushIntervalMs: 40 });
  log.start();
  log.record(entry());
  log.record(entry());
  t.equal(await storage.countMetadata(), 0);
  await msUntil(10_000, async () => (await storage.countMetadata()) >= 2);
  t.equal(await storage.countMetadata(), 2, 'written by the timer');
  log.record(entry());
  await log.close();
  t.equal(await storage.countMetadata(), 3, 'shutdown flush');
  t.equal(log.written, 3);
});

t.test('row contents: counts and codes only, anything unexpected is normalised', async (t) => {
  const storage = openStorage(t);
  const log = new MetadataLog({ storage, clock: new ManualClock(T0) });
  const keyId = newKeyId();
  const counts = repairCountsOf({
    syntax_repairs: [{ type: 'closed_string', confidence: 'high', safe: true, position: 3, count: 2 },
      { type: 'removed_trailing_comma', confidence: 'high', safe: true, position: 9 }],
    schema_repairs: [{ type: 'type_coercion', confidence: 'medium', safe: true, field: '/a', original_value: '1', repaired_value: 1 },
      { type: 'type_coercion', confidence: 'medium', safe: true, field: '/b', original_value: '2', repaired_value: 2 }],
  });
  t.same(counts, { closed_string: 2, removed_trailing_comma: 1, type_coercion: 2 });
  t.same(repairCountsOf({ syntax_repairs: [], schema_repairs: [] }), {});
  log.record(entry({ time: T0 - 5, keyId, contract: 'compact', success: false, errorCode: 'SCHEMA_VALIDATION_FAILED', confidence: 'medium', repairCounts: counts, inputBytes: 321, latencyMs: 2.25 }));
  log.record(entry({ keyId: 'sk_live_0123456789abcdef0123456789abcdef', endpoint: '/v1/secret?x=1', errorCode: 'not a code', repairCounts: { made_up: 3, closed_string: -1, removed_comments: 1.7 } }));
  await log.flush();
  const [a, b] = rows(storage.path);
  t.same(a, {
    id: 1, time: T0 - 5, key_id: keyId, endpoint: '/v1/repair', contract: 'compact', success: 0, error_code: 'SCHEMA_VALIDATION_FAILED',
    confidence: 'medium', repair_counts: '{"closed_string":2,"removed_trailing_comma":1,"type_coercion":2}', input_bytes: 321, latency_ms: 2.25,
  });
  t.equal(b!['key_id'], null, 'a raw key is never logged as a key id');
  t.equal(b!['endpoint'], 'other');
  t.equal(b!['error_code'], 'UNKNOWN_REPAIR_ERROR');
  t.same(JSON.parse(b!['repair_counts'] as string), { other: 3, removed_comments: 1 }, 'unknown types summed as other, counts whole');
  t.equal(b!['time'], T0, 'time defaults to the clock');
  log.record(entry({ endpoint: 'demo', keyId: 'env_0123456789abcdef', errorCode: 'aborted', confidence: 'n/a' }));
  await log.flush();
  const c = rows(storage.path)[2]!;
  t.same([c['endpoint'], c['key_id'], c['error_code'], c['confidence']], ['/v1/demo/repair', 'env_0123456789abcdef', 'aborted', 'n/a'],
    'server route names, API_KEYS-store ids and aborted requests are understood');
});

t.test('a stuck database: the ring keeps the newest rows and counts drops', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir, 0);
  const log = new MetadataLog({ storage, clock: new ManualClock(T0), capacity: 100, batchRows: 1_000 });
  const locker = new Database(dbPathFor(dataDir));
  locker.exec('BEGIN IMMEDIATE');
  for (let i = 0; i < 250; i++) log.record(entry({ inputBytes: i }));
  await t.rejects(log.flush(), /locked|busy/i);
  t.equal(log.pending, 100, 'bounded');
  t.equal(log.dropped, 150, 'the oldest were dropped and counted');
  locker.exec('COMMIT');
  locker.close();
  t.equal(await log.flush(), 100);
  const written = rows(storage.path).map((r) => r['input_bytes']);
  t.same(written, Array.from({ length: 100 }, (_, i) => 150 + i), 'the newest 100, in order');
});

t.test('retention deletes rows older than 90 days (moved clock), in chunks', async (t) => {
  const storage = openStorage(t);
  const clock = new ManualClock(T0);
  const log = new MetadataLog({ storage, clock, batchRows: 1_000 });
  for (let d = 0; d <= 100; d++) log.record(entry({ time: T0 - d * DAY, inputBytes: d }));
  await log.flush();
  const job = new RetentionJob({ storage, clock, chunkRows: 3 });
  t.equal(job.retentionMs, METADATA_RETENTION_MS);
  t.equal(METADATA_RETENTION_MS, 90 * DAY);
  t.equal(await job.runOnce(), 10, 'days 91..100 are gone');
  t.equal(await storage.countMetadata(), 91, 'day 90 exactly is kept');
  clock.advance(30 * DAY);
  t.equal(await job.runOnce(), 30);
  const left = rows(storage.path).map((r) => r['input_bytes'] as number);
  t.equal(Math.max(...left), 60, 'nothing older than 90 days relative to the moved clock');
  // The timer-driven job also runs once at start.
  clock.advance(365 * DAY);
  job.start();
  t.teardown(() => job.close());
  await msUntil(10_000, async () => (await storage.countMetadata()) === 0);
  t.equal(await storage.countMetadata(), 0);
});

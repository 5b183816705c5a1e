// The default metadata path: rows handed to a writer thread with its own SQLite connection.
import t from 'tap';
import Database from 'better-sqlite3';
import { ManualClock } from '../../server/accounts/clock.js';
import { MetadataLog } from '../../server/accounts/metadata/metadata-log.js';
import { ThreadedMetadataWriter } from '../../server/accounts/metadata/metadata-writer.js';
import { RetentionJob } from '../../server/accounts/metadata/retention.js';
import { dbPathFor } from '../../server/accounts/storage/sqlite-storage.js';
import { openStorage, tempDataDir } from './helpers.js';

const T0 = Date.UTC(2025, 6, 1);
const DAY = 86_400_000;

function row(time: number, inputBytes = 1) {
  return { time, keyId: null, endpoint: '/v1/repair', contract: 'envelope' as const, success: true, errorCode: null, confidence: 'high' as const, repairCounts: null, inputBytes, latencyMs: 1 };
}

t.test('rows and retention deletes go through the writer thread', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir);
  const writer = new ThreadedMetadataWriter({ dataDir });
  t.teardown(() => writer.close());
  const clock = new ManualClock(T0);
  const log = new MetadataLog({ storage: writer, clock, batchRows: 100 });
  for (let d = 0; d < 250; d++) log.record(row(T0 - d * DAY, d));
  t.equal(await log.flush(), 250);
  t.equal(await storage.countMetadata(), 250, 'visible to the main connection');
  const job = new RetentionJob({ storage: writer, clock, chunkRows: 64 });
  t.equal(await job.runOnce(), 250 - 91);
  t.equal(await storage.countMetadata(), 91);
  await writer.close();
  await t.rejects(writer.insertMetadata([{ ...row(T0), repairCounts: {} }]), /closed/);
});

t.test('a locked database makes the thread wait, not the event loop', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir);
  const writer = new ThreadedMetadataWriter({ dataDir, busyTimeoutMs: 2_000 });
  t.teardown(() => writer.close());
  const log = new MetadataLog({ storage: writer, clock: new ManualClock(T0) });
  log.record(row(T0));
  await log.flush(); // thread started, schema present
  const locker = new Database(dbPathFor(dataDir));
  locker.exec('BEGIN IMMEDIATE');
  log.record(row(T0 + 1));
  const flushed = log.flush();
  // While the thread waits for the lock, this thread keeps running timers on time.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  await new Promise((resolve) => setTimeout(resolve, 300));
  clearInterval(timer);
  t.ok(ticks >= 5, `event loop kept turning during the lock (${ticks} ticks of 10 ms in 300 ms)`);
  t.equal(await storage.countMetadata(), 1, 'second row not written yet');
  locker.exec('COMMIT');
  locker.close();
  t.equal(await flushed, 1);
  t.equal(await storage.countMetadata(), 2);
});

t.test('a write that fails in the thread comes back as an error; the rows stay buffered', async (t) => {
  const dataDir = tempDataDir(t);
  openStorage(t, dataDir);
  const writer = new ThreadedMetadataWriter({ dataDir, busyTimeoutMs: 0 });
  t.teardown(() => writer.close());
  const log = new MetadataLog({ storage: writer, clock: new ManualClock(T0) });
  log.record(row(T0));
  await log.flush();
  const locker = new Database(dbPathFor(dataDir));
  locker.exec('BEGIN IMMEDIATE');
  log.record(row(T0 + 1));
  await t.rejects(log.flush(), { message: /locked|busy/i, code: 'SQLITE_BUSY' });
  t.equal(log.pending, 1);
  locker.exec('COMMIT');
  locker.close();
  t.equal(await log.flush(), 1);
});

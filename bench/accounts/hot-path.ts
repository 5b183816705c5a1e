// `node dist/bench/accounts/hot-path.js`: what the accounts layer adds to one keyed request on the
// uWS thread, against the API_KEYS-only path (server/accounts/key-store.ts MemoryKeyStore.lookup), and
// what its background work costs (metadata and usage flushes, the key-change probe). Real SQLite
// file in a temp DATA_DIR; nothing is mocked. The HTTP figure (keyed small repairs,
// store vs API_KEYS only, target within 10%) is bench/accounts/http.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryKeyStore } from '../../server/accounts/key-store.js';
import { Accounts, newKeyAdmissionDecision } from '../../server/accounts/index.js';
import type { Clock } from '../../server/accounts/clock.js';
import type { MetadataEntry } from '../../server/accounts/metadata/metadata-log.js';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { printTable } from '../lib/table.js';
import { measureInterleaved } from '../lib/timing.js';

const KEYS = 1_000;
const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-bench-accounts-'));
// 1 ms per request: each of the 1,000 team keys is seen once a second, under its 1,000/min limit,
// so every check takes the "allowed" path (the one that writes state).
let tick = Date.UTC(2025, 0, 10);
const clock: Clock = { now: () => tick };

try {
  const keys = Array.from({ length: KEYS }, generateApiKey);
  const accounts = await Accounts.open({
    dataDir, clock, apiKeys: keys.map((key) => ({ key, tier: 'team' as const })),
  });
  const memory = new MemoryKeyStore(keys.map((key) => ({ key, tier: 'team' as const })));
  const admission = newKeyAdmissionDecision();
  const entry: MetadataEntry = {
    keyId: null, endpoint: 'repair', contract: 'envelope', success: true, errorCode: null, confidence: 'high',
    repairCounts: { closed_string: 1, removed_trailing_comma: 1 }, inputBytes: 310, latencyMs: 0.05,
  };
  let i = 0;

  const apiKeysOnly = (): unknown => memory.lookup(keys[i++ % KEYS]!);
  const withAccounts = (): unknown => {
    tick++;
    const record = accounts.keys.lookup(keys[i++ % KEYS]!)!;
    accounts.admission.admit(record, admission);
    accounts.quota.record(record.id);
    entry.keyId = record.id;
    accounts.metadata.record(entry);
    return admission.remaining;
  };
  const [a, b] = measureInterleaved([apiKeysOnly, withAccounts], { runs: 9, minRunMs: 100, budgetMs: 8_000 });
  if (accounts.metadata.pending === 0) throw new Error('metadata was not recorded');

  // Background costs, each measured on a fresh, realistic batch. "uWS thread" time is the main
  // event loop's active time (eventLoopUtilization), which excludes the writer thread's work.
  await accounts.metadata.flush(); // empty the ring (rows recorded above)
  const flushCosts = async (target: Accounts): Promise<{ mainUs: number; wallUs: number }> => {
    const rows = 20_000;
    for (let r = 0; r < rows; r++) { entry.keyId = null; target.metadata.record(entry); }
    const elu = performance.eventLoopUtilization();
    const t0 = performance.now();
    await target.metadata.flush();
    const wall = performance.now() - t0;
    const active = performance.eventLoopUtilization(elu).active;
    return { mainUs: (active * 1000) / rows, wallUs: (wall * 1000) / rows };
  };
  const threaded = await flushCosts(accounts);
  const inline = await Accounts.open({ dataDir: join(dataDir, 'inline'), clock, metadataThread: false });
  const sameThread = await flushCosts(inline);
  await inline.close();
  for (let r = 0; r < KEYS; r++) accounts.quota.record(accounts.keys.lookup(keys[r]!)!.id);
  let t0 = performance.now();
  await accounts.quota.flush();
  const quotaFlushMs = performance.now() - t0;
  t0 = performance.now();
  for (let r = 0; r < 1_000; r++) await accounts.keys.refresh();
  const probeUs = (performance.now() - t0);
  await accounts.close();

  printTable(['path (per keyed request, uWS thread)', 'ns/op'], [
    ['API_KEYS only: MemoryKeyStore.lookup', a!.nsPerOp.toFixed(0)],
    ['accounts: lookup + admit + quota.record + metadata.record', b!.nsPerOp.toFixed(0)],
    ['added by the accounts layer', (b!.nsPerOp - a!.nsPerOp).toFixed(0)],
  ]);
  printTable(['background work (between requests)', 'cost'], [
    ['metadata flush per row, writer thread: uWS-thread time', `${threaded.mainUs.toFixed(2)} µs`],
    ['metadata flush per row, writer thread: wall time', `${threaded.wallUs.toFixed(2)} µs`],
    ['metadata flush per row, same thread (metadataThread: false)', `${sameThread.mainUs.toFixed(2)} µs`],
    [`usage flush of ${KEYS} keys + re-read of totals`, `${quotaFlushMs.toFixed(2)} ms`],
    ['key-change probe (every 500 ms, nothing changed)', `${probeUs.toFixed(2)} µs`],
  ]);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

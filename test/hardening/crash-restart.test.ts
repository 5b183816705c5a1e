// Process-level failures: SIGTERM in the middle of mixed load answers every
// request sent before the signal; SIGKILL of the whole process loses at most the metadata batch in
// flight, and the SQLite database in DATA_DIR opens intact (integrity_check) and serves on restart.
// (Worker crashes mid-request: test/hardening/task-deadline.test.ts.)
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/start-server.js';
import { AUTH, KEY, sleep } from './helpers.js';

interface Outcome { sentAt: number; doneAt: number; ok: boolean; detail: string }

const BODIES = [
  JSON.stringify({ raw_output: "{a: 1, 'b': [2,3,]," }), // inline
  JSON.stringify({ content: `{"pad": "${'p'.repeat(20_000)}", "x": [1,` }), // pool
  JSON.stringify({ raw_output: "[{a: 1}, {b: 2}" }),
  JSON.stringify({ raw_output: `{"pad": "${'q'.repeat(10_000)}", "y": 2` }),
  JSON.stringify({ content: '{"c": 3' }),
  JSON.stringify({ raw_output: '{"slow": "__JSONMEND_TEST_SLEEP_MS=150__", "y": 2' }), // pool, 150 ms
];

/** `clients` loops posting until `stopAt()` or their first failure; every outcome is recorded. */
async function load(url: string, clients: number, stopAt: () => boolean, outcomes: Outcome[] = []): Promise<Outcome[]> {
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; !stopAt(); i++) {
      const body = BODIES[(c + i) % BODIES.length]!;
      const sentAt = performance.now();
      try {
        const response = await fetch(`${url}/v1/repair`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(15_000) });
        const answer = await response.json();
        const ok = response.status === 200 && (answer.success === true || answer.valid === true);
        outcomes.push({ sentAt, doneAt: performance.now(), ok, detail: ok ? '' : `${Math.round(performance.now() - sentAt)} ms: ${JSON.stringify(answer).slice(0, 200)}` });
      } catch (error) {
        outcomes.push({ sentAt, doneAt: performance.now(), ok: false, detail: String((error as Error).cause ?? error) });
        return; // the server is gone for this client
      }
    }
  }));
  return outcomes;
}

t.test('SIGTERM during mixed load: every request sent before the signal gets a complete answer', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2', QUEUE_MAX: '256', JSONMEND_TEST_HOOKS: '1' });
  let signalAt = Infinity;
  const answered: Outcome[] = [];
  const running = load(server.url, 24, () => performance.now() > signalAt, answered);
  // Mid-load: once 40 answers are in (not after a fixed time: a busy machine answers fewer a second).
  for (const until = performance.now() + 30_000; answered.length < 40 && performance.now() < until;) await sleep(50);
  signalAt = performance.now();
  const exit = await server.stop('SIGTERM', 20_000);
  const outcomes = await running;
  const before = outcomes.filter((o) => o.sentAt < signalAt);
  const inFlight = before.filter((o) => o.doneAt > signalAt);
  const failed = before.filter((o) => !o.ok);
  t.ok(before.length > 30, `${before.length} requests sent before SIGTERM, ${inFlight.length} of them in flight at the signal`);
  t.same(failed.map((o) => o.detail), [], 'none of them failed');
  t.ok(inFlight.length > 0, 'the signal landed mid-load');
  t.same(exit, { code: 0, signal: null }, 'drained and exited 0');
});

t.test('SIGKILL mid-load: the database is intact, at most the last metadata batch is lost, restart serves', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-kill-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', DATA_DIR: dataDir, JSONMEND_TEST_HOOKS: '1' };
  const server = await startServer(t, env);
  let killAt = Infinity;
  const running = load(server.url, 12, () => performance.now() > killAt);
  await sleep(4000);
  killAt = performance.now();
  t.same(await server.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
  const outcomes = await running;
  const answered = outcomes.filter((o) => o.ok);

  const db = new Database(join(dataDir, 'jsonmend.sqlite'));
  t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'PRAGMA integrity_check = ok after SIGKILL');
  const rows = (db.prepare('SELECT COUNT(*) AS n FROM request_log').get() as { n: number }).n;
  db.close();
  // Metadata is written in batches every second (server/accounts/metadata/metadata-log.ts): what was answered
  // in the last flush interval before the kill may be missing; everything older must be there.
  const olderThanABatch = answered.filter((o) => o.doneAt < killAt - 1500).length;
  t.comment(`answered ${answered.length}, logged ${rows}, lost ${answered.length - rows} (answered in the last 1.5 s: ${answered.length - olderThanABatch})`);
  t.ok(rows >= olderThanABatch, `every request answered more than one batch before the kill is logged (${rows} >= ${olderThanABatch})`);
  t.ok(rows <= answered.length + 12, 'no phantom rows (at most the requests in flight at the kill)');

  const restarted = await startServer(t, env);
  const response = await fetch(`${restarted.url}/v1/repair`, { method: 'POST', headers: AUTH, body: JSON.stringify({ raw_output: '[1,' }) });
  t.same((await response.json()).repaired, [1], 'the restarted server authenticates the same key and repairs');
  t.same(await restarted.stop('SIGTERM'), { code: 0, signal: null });
  const reopened = new Database(join(dataDir, 'jsonmend.sqlite'));
  t.equal(reopened.pragma('integrity_check', { simple: true }), 'ok', 'intact after the restart too');
  const after = (reopened.prepare('SELECT COUNT(*) AS n FROM request_log').get() as { n: number }).n;
  reopened.close();
  t.equal(after, rows + 1, 'the graceful stop flushed the one new row');
});

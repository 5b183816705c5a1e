// Billing across a PostgreSQL stall: every PostgreSQL process frozen (SIGSTOP) for longer than the
// nodes' query timeout (5 s) while two nodes serve a burst. A usage flush or metadata batch that
// timed out on a node may have been written when PostgreSQL wakes; it is sent again, and the batch
// id and row keys make that second write add nothing. So the stored count equals the requests
// served, and the request log holds one row per request.
import t from 'tap';
import { newKey, repairAs } from '../accounts/http-helpers.js';
import { msUntil } from '../helpers/until.js';
import { startCluster } from './cluster-helpers.js';

const KEY = newKey();
const cluster = await startCluster(t, { env: { API_KEYS: `${KEY}:unlimited` } });
const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
const pg = cluster.pg!;
const month = new Date().toISOString().slice(0, 7);
const keyFilter = `key_id IN (SELECT id FROM api_keys WHERE tier = 'unlimited')`;
const storedCount = (): number => Number(pg.query(`SELECT coalesce(sum(count), 0) FROM monthly_usage WHERE month = '${month}' AND ${keyFilter}`).trim());
const loggedRows = (): number => Number(pg.query(`SELECT count(*) FROM request_log WHERE endpoint = '/v1/repair' AND ${keyFilter}`).trim());

/** Sends requests alternating over both nodes until `stop()`; returns how many were served. */
async function burst(stop: () => boolean): Promise<number> {
  let served = 0;
  const client = async (offset: number): Promise<void> => {
    for (let i = offset; !stop(); i += 4) {
      const answer = await repairAs((i % 2 === 0 ? a : b).url, KEY, { raw_output: `{"n": ${i},` });
      if (answer.body?.success === true) served++;
    }
  };
  await Promise.all([0, 1, 2, 3].map(client));
  return served;
}

t.test('a PostgreSQL stall past the query timeout: usage and the request log count each served request once', async (t) => {
  t.equal(storedCount(), 0, 'nothing counted yet');
  let stopAt = Infinity;
  const running = burst(() => performance.now() > stopAt);
  // Serve a while with PostgreSQL up, so flushes are in flight when it freezes.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  pg.signalAll('SIGSTOP');
  try {
    // Longer than the 5 s query timeout: the flushes sent now time out on the nodes, and commit
    // when PostgreSQL wakes.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
  } finally {
    pg.signalAll('SIGCONT');
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  stopAt = performance.now();
  const served = await running;
  t.ok(served > 0, `${served} requests served across the stall`);
  // Every node flushes each second and retries what failed; wait until the count arrives.
  const ms = await msUntil(30_000, async () => storedCount() >= served);
  t.ok(ms < 30_000, `stored usage reached ${storedCount()} of ${served}`);
  const logged = await msUntil(30_000, async () => loggedRows() >= served);
  t.ok(logged < 30_000, `request log reached ${loggedRows()} of ${served} rows`);
  // Several more flush rounds: a retried batch that was already written would show up now.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  t.equal(storedCount(), served, 'usage counts each served request once');
  t.equal(loggedRows(), served, 'one request_log row per served request');
  t.equal(Number(pg.query(`SELECT count(*) FROM (SELECT row_key FROM request_log WHERE row_key IS NOT NULL GROUP BY row_key HAVING count(*) > 1) d`).trim()), 0, 'no row key twice');
});

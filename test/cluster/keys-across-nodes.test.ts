// Keys and accounts in PostgreSQL (DATABASE_URL) shared by two nodes: a key created with the key CLI
// works on the very next request on either node, a revoked one is refused by both within a second,
// migrations and API_KEYS seeding are safe with both nodes starting at once, and the 90-day
// retention runs on one node only.
import t from 'tap';
import { errorCodeOf, KEY_LINE, lastLine, newKey, repairAs } from '../accounts/http-helpers.js';
import { msUntil } from '../helpers/until.js';
import { startServer } from '../helpers/start-server.js';
import { keyCli, startCluster } from './cluster-helpers.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../server/accounts/storage/pg-migrations.js';

const SEEDED = newKey();
const cluster = await startCluster(t, { redis: false, env: { API_KEYS: `${SEEDED}:pro` } });
const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];

t.test('both nodes started at once on a fresh database: migrated once, the seeded key stored once', async (t) => {
  t.equal(cluster.pg!.query('SELECT max(version) FROM schema_version').trim(), String(PG_SCHEMA_VERSION));
  t.equal(cluster.pg!.query('SELECT count(*) FROM schema_version').trim(), String(PG_MIGRATIONS.length), 'each migration applied once');
  t.equal(cluster.pg!.query(`SELECT count(*) FROM api_keys WHERE name = 'API_KEYS'`).trim(), '1');
  for (const node of [a, b]) t.equal((await repairAs(node.url, SEEDED, { raw_output: '{"a":1' })).body.success, true);
});

t.test('a key created with the CLI against DATABASE_URL works at once on both nodes; a revoked one is refused by both within 1 s', async (t) => {
  const created = await keyCli(cluster.env, 'create', '--tier', 'free', '--name', 'ci');
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^Created free key key_\w+ "ci" \(prefix sk_live_\w{4}\) in PostgreSQL postgres:\/\//);
  const key = lastLine(created.stdout);
  t.match(key, KEY_LINE);
  // The very next request, on the node that did not see anything happen.
  for (const node of [b, a]) {
    const answer = await repairAs(node.url, key, { raw_output: '{"x":1' });
    t.equal(answer.body.success, true, `accepted by ${node.url} at once`);
  }
  const listed = await keyCli(cluster.env, 'list');
  t.match(listed.stdout, /prefix\s+id\s+name\s+tier/);
  const prefix = /prefix (sk_live_\w{4})/.exec(created.stdout)![1]!;
  const revoked = await keyCli(cluster.env, 'revoke', prefix);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, /^Revoked sk_live_\w{4} \(key_\w+\); a running server refuses it within a second\./);
  for (const node of [a, b]) {
    // Each node refreshes its key cache every second; the time it took is reported, the speed is not
    // asserted (a busy machine delays the refresh and these requests alike).
    const ms = await msUntil(15_000, async () => errorCodeOf(await repairAs(node.url, key, { raw_output: '{"x":1' })) === 'INVALID_API_KEY');
    t.ok(ms < Infinity, `refused by ${node.url} after ${ms.toFixed(0)} ms`);
    const compact = await repairAs(node.url, key, { content: '{"x":1' });
    t.match(compact.body, { valid: false, errors: [{ code: 'INVALID_API_KEY' }] }, 'compact contract too');
  }
});

t.test('retention: exactly one node holds the leader lock; when it dies a node that starts takes over and deletes old metadata', async (t) => {
  const leaders = (): string[] => cluster.pg!.query(`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a USING (pid)
    WHERE l.locktype = 'advisory' AND l.granted AND l.objid = ${0x6a736d32}`).trim().split('\n').filter(Boolean);
  // Retention runs once at start on each node; the first to take the lock keeps it for its lifetime.
  t.same(leaders().length, 1, 'one leader');
  const leader = leaders()[0]!;
  t.match(leader, /^jsonmend:node-[12]-session$/);
  const old = Date.now() - 91 * 86_400_000;
  cluster.pg!.query(`INSERT INTO request_log (time, key_id, endpoint, contract, success, repair_counts, input_bytes, latency_ms)
    SELECT ${old}, NULL, 'repair', 'envelope', true, '{}', 1, 1 FROM generate_series(1, 10)`);
  await (leader.includes('node-1') ? a : b).stop('SIGKILL');
  const third = await startServer(t, { ...cluster.env, NODE_ID: 'node-3' });
  const ms = await msUntil(15_000, async () => cluster.pg!.query(`SELECT count(*) FROM request_log WHERE time = ${old}`).trim() === '0');
  t.ok(ms < Infinity, `old rows deleted by the new leader (${ms.toFixed(0)} ms)`);
  t.same(leaders(), ['jsonmend:node-3-session'], 'exactly one leader again');
  await third.stop();
});

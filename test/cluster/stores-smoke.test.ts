// The test stores themselves: a real redis-server and a real PostgreSQL start, answer through the
// project's own connection modules, and stop by pid.
import t from 'tap';
import { connectPostgres } from '../../server/stores/postgres-connection.js';
import { connectRedis, redisReady } from '../../server/stores/redis-connection.js';
import { startPostgres } from '../../support/postgres-server.js';
import { startRedis } from '../../support/redis-server.js';

t.test('redis-server on a unix socket answers through connectRedis, and a frozen one times out', async (t) => {
  const redis = await startRedis(t);
  const client = connectRedis(redis.url, () => {}, { commandTimeoutMs: 200 });
  t.teardown(() => client.disconnect());
  await redisReady(client, 5_000);
  t.equal(await client.set('k', 'v'), 'OK');
  t.equal(await client.get('k'), 'v');
  redis.pause();
  const started = Date.now();
  await t.rejects(client.get('k'));
  t.ok(Date.now() - started < 2_000, 'a frozen Redis costs at most the command timeout');
  redis.resume();
});

t.test('PostgreSQL in a temp dir answers through connectPostgres over its socket and TCP', async (t) => {
  const pg = await startPostgres(t);
  for (const url of [pg.url, pg.tcpUrl]) {
    const pool = connectPostgres(url, () => {});
    const { rows } = await pool.query<{ n: number }>('SELECT 1 + 1 AS n');
    t.equal(rows[0]!.n, 2, url);
    await pool.end();
  }
  t.equal(pg.query('SELECT 40 + 2').trim(), '42');
});

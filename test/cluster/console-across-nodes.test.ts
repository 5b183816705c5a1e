// The web console over two nodes sharing Redis and PostgreSQL: a browser signed in through one node
// is signed in on the other (sessions in Redis, CSRF tokens signed with a key from CLUSTER_SECRET),
// signing out on one ends it on both, the 5-key cap and 10-a-day limit hold when both nodes create
// keys at once, a console-made key works on the other node at once, and the sign-in backoff and
// sign-up limit count attempts on both nodes.
import t from 'tap';
import { ConsoleClient } from '../web/helpers.js';
import { repairAs } from '../accounts/http-helpers.js';
import { startCluster } from './cluster-helpers.js';

const cluster = await startCluster(t, { env: { TRUST_PROXY: '127.0.0.1,::1' } });
const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
const PASSWORD = 'correct horse battery';
const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });

/** The same browser (cookie and CSRF token) talking to another node. */
function via(url: string, client: ConsoleClient): ConsoleClient {
  const other = new ConsoleClient(url, client.extraHeaders);
  other.cookie = client.cookie;
  other.csrf = client.csrf;
  return other;
}

t.test('signed in through one node, signed in on the other; signed out on one, out on both', async (t) => {
  const onA = new ConsoleClient(a.url, from('10.7.0.1'));
  await onA.start();
  const onB0 = via(b.url, onA);
  // The anonymous cookie's CSRF token from node A is accepted by node B (same CLUSTER_SECRET).
  const signup = await onB0.send('POST', 'signup', { email: 'carol@example.com', password: PASSWORD });
  t.equal(signup.status, 201, JSON.stringify(signup.body));
  const onAAfter = via(a.url, onB0);
  const session = await onAAfter.send('GET', 'session');
  t.match(session.body, { signed_in: true, email: 'carol@example.com' }, 'node A knows the session node B created');
  t.equal(session.body.csrf_token, onB0.csrf, 'the same CSRF token on both nodes');
  const created = await onAAfter.send('POST', 'keys', { name: 'from A' });
  t.equal(created.status, 201);
  const key = created.body.key as string;
  t.equal((await repairAs(b.url, key, { raw_output: '{"c":1' })).body.success, true, 'a console key made on A works on B at once');
  t.equal((await repairAs(b.url, key, { content: '{"c":1' })).status, 200, 'compact too');
  t.equal((await via(b.url, onAAfter).send('GET', 'keys')).body.keys.length, 1);
  const out = await onAAfter.send('POST', 'signout', {});
  t.equal(out.status, 200);
  const stale = via(b.url, onB0);
  t.equal((await stale.send('GET', 'keys')).status, 401, 'the signed-out session is gone on node B too');
});

t.test('the 5-key cap holds when both nodes create keys at once', async (t) => {
  const onA = new ConsoleClient(a.url, from('10.7.0.2'));
  await onA.start();
  t.equal((await onA.send('POST', 'signup', { email: 'dave@example.com', password: PASSWORD })).status, 201);
  const onB = via(b.url, onA);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? onA : onB).send('POST', 'keys', { name: `k${i}` })));
  const statuses = answers.map((x) => x.status).sort();
  t.same(statuses, [201, 201, 201, 201, 201, 409, 409, 409], 'five created, three refused');
  t.ok(answers.filter((x) => x.status === 409).every((x) => x.body.error.code === 'KEY_LIMIT_REACHED'));
  t.equal(cluster.pg!.query(`SELECT count(*) FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'dave@example.com' AND k.revoked_at IS NULL`).trim(), '5');
});

t.test('the 10-keys-a-day limit holds when both nodes create keys at once', async (t) => {
  const onA = new ConsoleClient(a.url, from('10.7.0.4'));
  await onA.start();
  t.equal((await onA.send('POST', 'signup', { email: 'frank@example.com', password: PASSWORD })).status, 201);
  for (let i = 0; i < 8; i++) {
    const made = await onA.send('POST', 'keys', { name: `r${i}` });
    t.equal(made.status, 201);
    t.equal((await onA.send('POST', 'keys/revoke', { id: made.body.record.id })).status, 200);
  }
  const onB = via(b.url, onA);
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? onA : onB).send('POST', 'keys', { name: `d${i}` })));
  t.same(answers.map((x) => x.status).sort(), [201, 201, 429, 429, 429, 429], 'two more today, whichever node');
  t.ok(answers.filter((x) => x.status === 429).every((x) => x.body.error.code === 'KEY_CREATION_LIMIT'));
});

t.test('sign-in backoff and the sign-up limit hold over both nodes', async (t) => {
  const owner = new ConsoleClient(a.url, from('10.7.0.3'));
  await owner.start();
  t.equal((await owner.send('POST', 'signup', { email: 'erin@example.com', password: PASSWORD })).status, 201);
  // From one IP: three free failures (docs/web.md), then a wait, whichever node each attempt reaches.
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const guess = new ConsoleClient(i % 2 === 0 ? a.url : b.url, from('10.7.1.1'));
    await guess.start();
    statuses.push((await guess.send('POST', 'signin', { email: 'erin@example.com', password: `guess ${i} guess` })).status);
  }
  t.same(statuses, [401, 401, 401, 429]);
  const signups: number[] = [];
  for (let i = 0; i < 3; i++) {
    const client = new ConsoleClient(i % 2 === 0 ? a.url : b.url, from('10.7.2.1'));
    await client.start();
    signups.push((await client.send('POST', 'signup', { email: `new${i}@example.com`, password: PASSWORD })).status);
  }
  t.same(signups, [201, 201, 429], 'two sign-ups a day per IP over both nodes');
});

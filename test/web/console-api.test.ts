// The console's JSON API over real HTTP: cookie flags, CSRF, sign-up/in/out, the sign-in limit,
// keys owned per user and usable at once on /v1/repair, revocation, usage. The server trusts
// loopback as a proxy, so each part can speak from its own client IP (X-Forwarded-For).
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { postJson, bearer } from '../helpers/start-server.js';
import { ConsoleClient, sleep, startWebServer } from './helpers.js';

const { url, dataDir } = await startWebServer(t, { TRUST_PROXY: '127.0.0.1,::1' });
const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });
const PASSWORD = 'correct horse battery';

t.test('a first visit gets an anonymous cookie and a CSRF token', async (t) => {
  const client = new ConsoleClient(url, from('10.9.0.1'));
  const first = await client.start();
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['csrf_token', 'signed_in']);
  t.equal(first.body.signed_in, false);
  t.match(client.lastSetCookie, /^jm_sid=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/);
  t.equal(first.headers.get('cache-control'), 'no-store');
  t.ok(first.headers.get('x-request-id'));
  const again = await client.start();
  t.equal(again.headers.get('set-cookie'), null, 'the cookie is kept, not replaced');
  t.equal(again.body.csrf_token, first.body.csrf_token);
  const behindTls = new ConsoleClient(url, { ...from('10.9.0.1'), 'x-forwarded-proto': 'https' });
  await behindTls.start();
  t.match(behindTls.lastSetCookie, /; Secure$/, 'Secure when the proxy says the client used HTTPS');
});

t.test('every state-changing request needs the CSRF token of its own cookie', async (t) => {
  const client = new ConsoleClient(url, from('10.9.0.2'));
  await client.start();
  const body = { email: 'csrf@example.com', password: PASSWORD };
  const refused = async (headers: Record<string, string>, what: string, path = 'signup'): Promise<void> => {
    const answer = await client.send('POST', path, body, headers);
    t.equal(answer.status, 403, what);
    t.equal(answer.body.error.code, 'CSRF_REJECTED', what);
  };
  await refused({ 'x-csrf-token': '' }, 'no token');
  await refused({ 'x-csrf-token': client.csrf.slice(0, -2) + 'AA' }, 'a wrong token');
  const other = new ConsoleClient(url, from('10.9.0.2'));
  await other.start();
  await refused({ 'x-csrf-token': other.csrf }, "another browser's token");
  await refused({ origin: 'https://evil.example' }, 'a cross-origin Origin');
  await refused({ 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site: cross-site');
  await refused({ 'x-csrf-token': '' }, 'sign-out too', 'signout');
  const noCookie = await fetch(`${url}/console/api/signin`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': client.csrf }, body: JSON.stringify(body),
  });
  t.equal(noCookie.status, 403, 'no cookie at all');
  const plain = await client.send('POST', 'signup', body, { 'content-type': 'text/plain' });
  t.equal(plain.status, 415, 'only JSON bodies (a form post cannot forge one)');
  const notJson = await client.send('POST', 'signup', '{"email":', {});
  t.equal(notJson.status, 400);
  t.equal(notJson.body.error.code, 'INVALID_REQUEST');
  const huge = await client.send('POST', 'signup', { email: 'x'.repeat(20_000), password: PASSWORD });
  t.equal(huge.status, 413);
  t.equal((await client.send('POST', 'signup', { email: 'csrf@example.com', password: PASSWORD }, { origin: url })).status, 201,
    'the same request with the right token and origin goes through');
});

let alice: ConsoleClient;

t.test('sign-up: validation, a new session id, a hashed password, one account per email', async (t) => {
  alice = new ConsoleClient(url, from('10.9.0.3'));
  await alice.start();
  const anonymous = alice.cookie;
  t.equal((await alice.send('POST', 'signup', { email: 'not-an-email', password: PASSWORD })).body.error.code, 'INVALID_EMAIL');
  t.equal((await alice.send('POST', 'signup', { email: 'alice@example.com', password: 'short' })).body.error.code, 'WEAK_PASSWORD');
  t.equal((await alice.send('POST', 'signup', { email: 'alice@example.com' })).status, 400);
  const created = await alice.send('POST', 'signup', { email: ' Alice@Example.com ', password: PASSWORD });
  t.equal(created.status, 201);
  t.same(created.body, { signed_in: true, email: 'alice@example.com', tier: 'free', csrf_token: alice.csrf });
  t.not(alice.cookie, anonymous, 'signing in issues a new id (no session fixation)');
  t.match(alice.lastSetCookie, /HttpOnly; SameSite=Strict; Max-Age=604800$/);
  const session = await alice.start();
  t.equal(session.body.signed_in, true);
  t.equal(session.body.email, 'alice@example.com');

  const twin = new ConsoleClient(url, from('10.9.0.3'));
  await twin.start();
  const taken = await twin.send('POST', 'signup', { email: 'ALICE@example.com', password: PASSWORD });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'EMAIL_TAKEN');

  const db = new Database(join(dataDir, 'jsonmend.sqlite'), { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  const row = db.prepare('SELECT email, password_hash FROM users WHERE email = ?').get('alice@example.com') as { password_hash: string };
  t.match(row.password_hash, /^scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  for (const file of ['jsonmend.sqlite', 'jsonmend.sqlite-wal']) {
    let bytes: Buffer;
    try { bytes = readFileSync(join(dataDir, file)); } catch { continue; }
    t.notOk(bytes.includes(PASSWORD), `the password is nowhere in ${file}`);
  }
});

t.test('keys: create, list, use at once, usage, revoke, refused at once', async (t) => {
  t.equal((await alice.send('POST', 'keys', { name: '' })).body.error.code, 'INVALID_KEY_NAME');
  t.equal((await alice.send('POST', 'keys', { name: 'x'.repeat(65) })).body.error.code, 'INVALID_KEY_NAME');
  const created = await alice.send('POST', 'keys', { name: 'ci bot' });
  t.equal(created.status, 201);
  const { key, record } = created.body;
  t.match(key, /^sk_live_[0-9A-Za-z]{32}$/);
  t.equal(record.prefix, key.slice(0, 12));
  t.same([record.name, record.tier, record.last_used_at, record.revoked_at], ['ci bot', 'free', null, null]);

  const listed = await alice.send('GET', 'keys');
  t.same(listed.body.keys.map((k: { id: string }) => k.id), [record.id]);
  t.notOk(JSON.stringify(listed.body).includes(key), 'the list never holds the key itself');

  const repaired = await postJson(`${url}/v1/repair`, { raw_output: "{a: 1, 'b': [2,],}" }, bearer(key));
  t.equal(repaired.body.success, true, 'the new key works without waiting for the cache probe');
  t.same(repaired.body.repaired, { a: 1, b: [2] });

  // Last-used times are written in the background every 500 ms, later on a busy machine: poll.
  let used = (await alice.send('GET', 'keys')).body.keys[0];
  for (const until = performance.now() + 15_000; used.last_used_at === null && performance.now() < until;) {
    await sleep(100);
    used = (await alice.send('GET', 'keys')).body.keys[0];
  }
  t.ok(used.last_used_at !== null && Date.parse(used.last_used_at) >= Date.parse(record.created_at), 'last used is recorded');
  const usage = await alice.send('GET', 'usage');
  t.same({ ...usage.body, resets_at: undefined }, {
    tier: 'free', month: new Date().toISOString().slice(0, 7), count: 1, quota: 1000, remaining: 999, resets_at: undefined,
    keys: [{ id: record.id, prefix: record.prefix, name: 'ci bot', count: 1 }],
  });

  const revoked = await alice.send('POST', 'keys/revoke', { id: record.id });
  t.equal(revoked.status, 200);
  t.ok(revoked.body.record.revoked_at);
  const refused = await postJson(`${url}/v1/repair`, { raw_output: '[1' }, bearer(key));
  t.equal(refused.body.metadata.errors[0].code, 'INVALID_API_KEY', 'refused at once');
  t.equal((await alice.send('POST', 'keys/revoke', { id: record.id })).body.error.code, 'KEY_NOT_FOUND');
});

t.test("one user can neither see nor revoke another's keys; active keys are bounded", async (t) => {
  const bob = new ConsoleClient(url, from('10.9.0.4'));
  await bob.start();
  t.equal((await bob.send('POST', 'signup', { email: 'bob@example.com', password: PASSWORD })).status, 201);
  const alicesKey = (await alice.send('POST', 'keys', { name: 'alice only' })).body.record;
  t.same((await bob.send('GET', 'keys')).body.keys, []);
  t.equal((await bob.send('POST', 'keys/revoke', { id: alicesKey.id })).body.error.code, 'KEY_NOT_FOUND');
  t.equal((await bob.send('POST', 'keys/revoke', { id: alicesKey.prefix })).body.error.code, 'KEY_NOT_FOUND');
  for (let i = 0; i < 5; i++) t.equal((await bob.send('POST', 'keys', { name: `k${i}` })).status, 201);
  const sixth = await bob.send('POST', 'keys', { name: 'k5' });
  t.equal(sixth.status, 409);
  t.equal(sixth.body.error.code, 'KEY_LIMIT_REACHED');
  const prefixes = (await bob.send('GET', 'keys')).body.keys.map((k: { prefix: string }) => k.prefix);
  t.equal(new Set(prefixes).size, prefixes.length, 'display prefixes stay unique');
});

t.test('sign-in, sign-out, and failures elsewhere do not lock the owner out', async (t) => {
  const client = new ConsoleClient(url, from('10.9.0.5'));
  await client.start();
  const wrong = await client.send('POST', 'signin', { email: 'alice@example.com', password: 'wrong password' });
  t.equal(wrong.status, 401);
  const unknown = await client.send('POST', 'signin', { email: 'nobody@example.com', password: PASSWORD });
  t.equal(unknown.status, 401);
  t.same(unknown.body, wrong.body, 'an unknown email and a wrong password look the same');
  const signedIn = await client.send('POST', 'signin', { email: 'ALICE@example.com', password: PASSWORD });
  t.equal(signedIn.status, 200);
  t.equal(signedIn.body.email, 'alice@example.com');
  const sid = client.cookie;
  t.equal((await client.send('GET', 'keys')).status, 200);
  const out = await client.send('POST', 'signout', {});
  t.equal(out.body.signed_in, false);
  const stale = new ConsoleClient(url, from('10.9.0.5'));
  stale.cookie = sid;
  const after = await stale.send('GET', 'keys');
  t.equal(after.status, 401, 'the old session id is dead');
  t.equal(after.body.error.code, 'NOT_SIGNED_IN');

  // Failures from other IPs do not lock the owner out (test/web/console-lockout.test.ts has the rest).
  const guesses = await Promise.all([0, 1, 2, 3, 4].map(async (i) => {
    const guess = new ConsoleClient(url, from(`10.9.1.${i}`));
    await guess.start();
    return (await guess.send('POST', 'signin', { email: 'bob@example.com', password: `guess ${i} guess` })).status;
  }));
  t.same(guesses, [401, 401, 401, 401, 401]);
  const owner = new ConsoleClient(url, from('10.9.1.9'));
  await owner.start();
  t.equal((await owner.send('POST', 'signin', { email: 'bob@example.com', password: PASSWORD })).status, 200, 'the owner signs in');
});

t.test('signed-out calls, unknown paths and wrong methods', async (t) => {
  const client = new ConsoleClient(url, from('10.9.0.6'));
  await client.start();
  for (const path of ['keys', 'usage']) {
    const answer = await client.send('GET', path);
    t.equal(answer.status, 401, path);
    t.equal(answer.body.error.code, 'NOT_SIGNED_IN');
  }
  t.equal((await client.send('POST', 'keys', { name: 'x' })).status, 401);
  const missing = await fetch(`${url}/console/api/nope`);
  t.equal(missing.status, 404);
  t.equal(((await missing.json()) as any).metadata.errors[0].code, 'NOT_FOUND');
  const wrongMethod = await fetch(`${url}/console/api/signup`);
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.get('allow'), 'POST');
});

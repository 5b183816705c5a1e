// Nobody can lock a console user out by failing to sign in on purpose, and sign-up refuses the
// passwords guessers try first. Real server, real HTTP; the server trusts loopback as a proxy, so
// each client speaks from its own IP (X-Forwarded-For).
import t from 'tap';
import { ConsoleClient, sleep, startWebServer } from './helpers.js';

const { url } = await startWebServer(t, { TRUST_PROXY: '127.0.0.1,::1' });
const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });
const PASSWORD = 'plum kettle orbit 42';
const EMAIL = 'owner@example.com';

async function client(ip: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(url, from(ip));
  await c.start();
  return c;
}

const owner = await client('198.51.100.7');
t.equal((await owner.send('POST', 'signup', { email: EMAIL, password: PASSWORD })).status, 201);

t.test('sign-up refuses blank, repetitive and common passwords', async (t) => {
  const c = await client('198.51.100.20');
  for (const password of ['        ', ' '.repeat(40), 'aaaaaaaa', 'zzzzzzzzzzzzzzzz', 'abababab', 'password', 'Password123!', 'qwerty123', '12345678', 'iloveyou', 'Summer2024!', 'letmein!!']) {
    const answer = await c.send('POST', 'signup', { email: 'weak@example.com', password });
    t.equal(answer.status, 400, JSON.stringify(password));
    t.equal(answer.body.error.code, 'WEAK_PASSWORD');
  }
  const blank = await c.send('POST', 'signup', { email: 'weak@example.com', password: '          ' });
  t.match(blank.body.error.message, /spaces/, 'the message says what is wrong');
  const common = await c.send('POST', 'signup', { email: 'weak@example.com', password: 'Password123!' });
  t.match(common.body.error.message, /common/);
});

t.test('wrong passwords from elsewhere do not lock the owner out', async (t) => {
  const attacker = await client('203.0.113.66');
  for (let i = 0; i < 3; i++) {
    t.equal((await attacker.send('POST', 'signin', { email: EMAIL, password: `guess number ${i}` })).status, 401);
  }
  const blocked = await attacker.send('POST', 'signin', { email: EMAIL, password: 'guess number 3' });
  t.equal(blocked.status, 429, 'past three failures the attacker\'s IP waits');
  t.equal(blocked.body.error.code, 'TOO_MANY_ATTEMPTS');
  t.equal(blocked.headers.get('retry-after'), '1', 'first 1 s');
  const started = performance.now();
  const signedIn = await (await client('198.51.100.7')).send('POST', 'signin', { email: EMAIL, password: PASSWORD });
  t.equal(signedIn.status, 200, 'the owner signs in at once from their own IP');
  t.ok(performance.now() - started < 5_000);
  const elsewhere = await (await client('192.0.2.44')).send('POST', 'signin', { email: EMAIL, password: PASSWORD });
  t.equal(elsewhere.status, 200, 'and from a new IP too');

  // The attacker's waits grow: 1 s, then 2 s after the next failure.
  await sleep(1_100);
  t.equal((await attacker.send('POST', 'signin', { email: EMAIL, password: 'guess number 4' })).status, 401);
  const longer = await attacker.send('POST', 'signin', { email: EMAIL, password: 'guess number 5' });
  t.equal(longer.status, 429);
  t.equal(longer.headers.get('retry-after'), '2', 'the wait doubled');
  const rightButThrottled = await attacker.send('POST', 'signin', { email: EMAIL, password: PASSWORD });
  t.equal(rightButThrottled.status, 429, 'the throttled IP is not even asked for the password');
  const other = await client('203.0.113.66');
  const otherAccount = await other.send('POST', 'signin', { email: 'someone-else@example.com', password: 'whatever it is' });
  t.equal(otherAccount.status, 401, 'the wait is per account: other accounts from that IP are only wrong');
});

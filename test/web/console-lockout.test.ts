// Nobody can lock a console user out by failing to sign in on purpose, and sign-up refuses the
// passwords guessers try first. Real server, real HTTP; the server trusts loopback as a proxy, so
// each client speaks from its own IP (X-Forwarded-For).
import t, { type Test } from 'tap';
import { type Answer, ConsoleClient, sleep, startWebServer } from './helpers.js';

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

// The attacker's waits run from its last failure, which the server stamps between sending that
// request and receiving its answer: a refusal is certain for an answer received less than the wait
// after the failing request was sent. A busier gap may outlast the wait (the limit working, not a
// failure); that attempt starts again from a fresh attacker IP (at most three times).
const ATTEMPTS = 3;

t.test('wrong passwords from elsewhere do not lock the owner out', async (t) => {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (await lockoutAttempt(t, `203.0.113.${65 + attempt}`)) return;
  }
  t.fail(`${ATTEMPTS} attempts each outlasted the attacker's waits`);
});

/** One attacker run; false when a gap outlasted a wait so that a refusal was no longer certain. */
async function lockoutAttempt(t: Test, ip: string): Promise<boolean> {
  const attacker = await client(ip);
  /** The attacker's next sign-in, expected refused when answered within `waitMs` of `since`. */
  const refusedWithin = async (since: number, waitMs: number, password: string): Promise<Answer | null> => {
    const answer = await attacker.send('POST', 'signin', { email: EMAIL, password });
    const span = performance.now() - since;
    if (answer.status !== 429 && span >= waitMs) {
      t.comment(`${ip}: answered ${span.toFixed(0)} ms after the last failure was sent, past the ${waitMs} ms wait; again`);
      return null;
    }
    t.equal(answer.status, 429, `refused ${span.toFixed(0)} ms after the last failure was sent (wait ${waitMs} ms)`);
    return answer;
  };

  let lastFailureSent = 0;
  for (let i = 0; i < 3; i++) {
    lastFailureSent = performance.now();
    t.equal((await attacker.send('POST', 'signin', { email: EMAIL, password: `guess number ${i}` })).status, 401);
  }
  const blocked = await refusedWithin(lastFailureSent, 1_000, 'guess number 3');
  if (blocked === null) return false;
  t.equal(blocked.body.error.code, 'TOO_MANY_ATTEMPTS', 'past three failures the attacker\'s IP waits');
  t.equal(blocked.headers.get('retry-after'), '1', 'first 1 s');
  // A refusal is answered at once, so the 200 says the owner was not held by the attacker's wait.
  const signedIn = await (await client('198.51.100.7')).send('POST', 'signin', { email: EMAIL, password: PASSWORD });
  t.equal(signedIn.status, 200, 'the owner signs in at once from their own IP');
  const elsewhere = await (await client('192.0.2.44')).send('POST', 'signin', { email: EMAIL, password: PASSWORD });
  t.equal(elsewhere.status, 200, 'and from a new IP too');

  // The attacker's waits grow: 1 s, then 2 s after the next failure.
  await sleep(1_100);
  lastFailureSent = performance.now();
  t.equal((await attacker.send('POST', 'signin', { email: EMAIL, password: 'guess number 4' })).status, 401);
  const longer = await refusedWithin(lastFailureSent, 2_000, 'guess number 5');
  if (longer === null) return false;
  t.equal(longer.headers.get('retry-after'), '2', 'the wait doubled');
  const rightButThrottled = await refusedWithin(lastFailureSent, 2_000, PASSWORD);
  if (rightButThrottled === null) return false;
  t.pass('the throttled IP is not even asked for the password');
  const other = await client(ip);
  const otherAccount = await other.send('POST', 'signin', { email: 'someone-else@example.com', password: 'whatever it is' });
  t.equal(otherAccount.status, 401, 'the wait is per account: other accounts from that IP are only wrong');
  return true;
}

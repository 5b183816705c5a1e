// The console's security parts on their own: scrypt hashing, the session store, the sign-in limit,
// CSRF tokens and origin checks, and the cookie. Time is a ManualClock, so nothing waits.
import t from 'tap';
import { ManualClock } from '../../server/accounts/clock.js';
import { SESSION_COOKIE, sessionCookie, sessionIdFrom } from '../../server/web/console/cookies.js';
import { CsrfGuard, looksSameOrigin } from '../../server/web/console/csrf.js';
import { LoginLimiter } from '../../server/web/console/login-limiter.js';
import { passwordProblem } from '../../server/web/console/password-policy.js';
import { DEFAULT_COST, HasherBusy, PasswordHasher } from '../../server/web/console/password.js';
import { SessionStore } from '../../server/web/console/sessions.js';

// A low cost keeps these checks fast; the default cost is checked once below.
const cheap = new PasswordHasher({ cost: { log2N: 10, r: 8, p: 1 } });

t.test('scrypt: format, per-user salt, verify', async (t) => {
  const a = await cheap.hash('correct horse battery');
  const b = await cheap.hash('correct horse battery');
  t.match(a, /^scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(a, b, 'a fresh salt per hash');
  t.equal(await cheap.verify('correct horse battery', a), true);
  t.equal(await cheap.verify('correct horse batterz', a), false);
  t.equal(await cheap.verify('correct horse battery', a.replace('ln=10', 'ln=11')), false, 'the cost is part of the hash');
  t.equal(await cheap.verify('x', 'plaintext'), false, 'an unreadable stored value never verifies');
  t.equal(await cheap.verify('x', a.replace('ln=10', 'ln=30')), false, 'absurd costs are refused, not computed');
  t.equal(await cheap.verifyDecoy('anything'), false);
});

t.test('scrypt: the default cost is N=2^15, r=8, p=3 and verifies', async (t) => {
  t.same(DEFAULT_COST, { log2N: 15, r: 8, p: 3 });
  const hasher = new PasswordHasher();
  const stored = await hasher.hash('pässwörd-ünicode');
  t.match(stored, /^scrypt\$ln=15,r=8,p=3\$/);
  t.equal(await hasher.verify('pässwörd-ünicode'.normalize('NFD'), stored), true, 'NFC-normalized before hashing');
});

t.test('scrypt: the gate bounds hashes at once and waiting', async (t) => {
  const gated = new PasswordHasher({ cost: { log2N: 10, r: 8, p: 1 }, concurrency: 1, maxWaiting: 1 });
  const first = gated.hash('one-password');
  const second = gated.hash('two-password');
  const refused = await gated.hash('three-password').catch((error: unknown) => error);
  t.type(refused, HasherBusy, 'the third is refused at once');
  t.match(await first, /^scrypt/);
  t.match(await second, /^scrypt/);
  t.match(await gated.hash('four-password'), /^scrypt/, 'slots come back');
});

t.test('sessions: unguessable ids, idle and absolute expiry', async (t) => {
  const clock = new ManualClock();
  const store = new SessionStore({ clock, idleMs: 1_000, lifetimeMs: 5_000 });
  const id = store.create('usr_1', 'a@b.co');
  t.match(id, /^[A-Za-z0-9_-]{43}$/);
  t.not(store.create('usr_1', 'a@b.co'), id);
  t.equal(store.get(id)?.userId, 'usr_1');
  t.equal(store.get(id + 'x'), undefined);
  t.equal(store.maxAgeSeconds(store.get(id)!), 5);
  clock.advance(900);
  t.ok(store.get(id), 'use postpones the idle end');
  clock.advance(900);
  t.ok(store.get(id));
  clock.advance(1_001);
  t.equal(store.get(id), undefined, 'idle too long');
  const kept = store.create('usr_2', 'c@d.co');
  for (let i = 0; i < 6; i++) {
    clock.advance(900);
    if (i < 5) t.ok(store.get(kept));
  }
  t.equal(store.get(kept), undefined, 'the absolute lifetime ends it even when used');
  const gone = store.create('usr_3', 'e@f.co');
  store.destroy(gone);
  t.equal(store.get(gone), undefined);
});

t.test('sessions: the store is bounded, the oldest go first', async (t) => {
  const clock = new ManualClock();
  const store = new SessionStore({ clock, maxSessions: 10 });
  const ids = Array.from({ length: 10 }, (_, i) => store.create(`usr_${i}`, `${i}@x.co`));
  t.equal(store.size, 10);
  const newest = store.create('usr_new', 'new@x.co');
  t.ok(store.size <= 10);
  t.equal(store.get(ids[0]!), undefined, 'the oldest was dropped');
  t.ok(store.get(ids[9]!));
  t.ok(store.get(newest));
  clock.advance(13 * 3_600_000);
  const before = store.size;
  t.ok(before > 0);
  t.equal(store.sweep(), before, 'a sweep drops every ended session');
  t.equal(store.size, 0);
});

t.test('sign-in limit: growing waits per (account, IP), per IP attempts, a ceiling per account', async (t) => {
  const clock = new ManualClock();
  const limiter = new LoginLimiter({ clock, perIp: 40, perEmail: 6, ceilingWindowMs: 3_600_000 });
  const fail = (ip: string): void => {
    t.equal(limiter.begin(ip, 'a@b.co'), 0, `${ip} may try`);
    limiter.failed('a@b.co', ip);
  };
  limiter.succeeded('a@b.co', '10.0.0.1'); // the owner's address
  for (let i = 0; i < 3; i++) fail('10.6.6.6');
  t.equal(limiter.begin('10.6.6.6', 'a@b.co'), 1, 'past three failures: 1 s');
  t.equal(limiter.begin('10.0.0.2', 'a@b.co'), 0, 'another IP is not affected');
  t.equal(limiter.begin('10.6.6.6', 'other@b.co'), 0, 'nor another account from that IP');
  clock.advance(1_000);
  fail('10.6.6.6');
  t.equal(limiter.begin('10.6.6.6', 'a@b.co'), 2, 'then 2 s');
  clock.advance(2_000);
  fail('10.6.6.6');
  t.equal(limiter.begin('10.6.6.6', 'a@b.co'), 4, 'then 4 s');
  limiter.succeeded('a@b.co', '10.6.6.6');
  t.equal(limiter.begin('10.6.6.6', 'a@b.co'), 0, 'a success from that IP ends its wait');

  fail('10.7.0.1'); // the sixth failure of the hour from anywhere
  t.ok(limiter.begin('10.7.0.2', 'a@b.co') > 0, 'past the ceiling an unknown IP is turned away');
  t.equal(limiter.begin('10.0.0.1', 'a@b.co'), 0, 'the owner\'s own IP is not');
  t.equal(limiter.begin('10.6.6.6', 'a@b.co'), 0, 'nor an IP the owner signed in from');
  clock.advance(3_600_000);
  t.equal(limiter.begin('10.7.0.2', 'a@b.co'), 0, 'the ceiling\'s window ended');

  let capped = 0;
  for (let i = 0; i < 30; i++) {
    clock.advance(capped * 1000);
    limiter.failed('c@b.co', '10.8.0.1');
    capped = limiter.begin('10.8.0.1', 'c@b.co');
  }
  t.equal(capped, 900, 'the wait stops growing at 15 minutes');
});

t.test('sign-in limit: per IP attempts, IPv6 per /64', async (t) => {
  const limiter = new LoginLimiter({ clock: new ManualClock(), perIp: 4, signUpsPerIp: 10 });
  for (let i = 0; i < 4; i++) t.equal(limiter.begin('10.0.0.9', `u${i}@b.co`), 0);
  t.ok(limiter.begin('10.0.0.9', 'u9@b.co') > 0, 'one IP trying many accounts is stopped');
  t.ok(limiter.begin('10.0.0.9', null) > 0, 'sign-ups count against the IP too');
  for (let i = 0; i < 4; i++) t.equal(limiter.begin(`2001:db8:1:2::${i + 1}`, null), 0);
  t.ok(limiter.begin('2001:db8:1:2:ffff::1', null) > 0, 'IPv6 is limited per /64');
});

t.test('sign-up limit: 2 per IP a day', async (t) => {
  const clock = new ManualClock();
  const limiter = new LoginLimiter({ clock });
  t.equal(limiter.begin('10.3.0.1', null), 0);
  t.equal(limiter.begin('10.3.0.1', null), 0);
  t.equal(limiter.begin('10.3.0.1', null), 86_400, 'the third waits a day');
  t.equal(limiter.begin('10.3.0.1', 'a@b.co'), 0, 'sign-ins from that IP are not affected');
  t.equal(limiter.begin('10.3.0.2', null), 0, 'another IP may');
  clock.advance(86_400_000);
  t.equal(limiter.begin('10.3.0.1', null), 0, 'the next day');
});

t.test('password policy: length, blank, repetitive, common', async (t) => {
  for (const weak of ['short', '        ', '\t\t\t\t\t\t\t\t', 'aaaaaaaa', 'abababab', '11111111', 'password', 'PASSWORD',
    'Password1', 'password123!', 'qwertyuiop', 'Qwerty123', 'iloveyou2', 'Dragon2024!', 'letmein!!', 'x'.repeat(129), 42]) {
    t.not(passwordProblem(weak), null, JSON.stringify(weak));
  }
  for (const fine of ['correct horse battery', 'plum kettle orbit 42', 'Tr0ub4dor&3x', 'ünïcödé pässwörd', 'a1b2c3d4e5f6g7']) {
    t.equal(passwordProblem(fine), null, fine);
  }
  t.equal(passwordProblem('        '), 'A password of only spaces is too easy to guess.');
});

t.test('sign-in limit: tables are bounded', async (t) => {
  const clock = new ManualClock();
  const limiter = new LoginLimiter({ clock, perIp: 1, perEmail: 1, maxEntries: 100 });
  for (let i = 0; i < 1_000; i++) limiter.begin(`10.1.${i >> 8}.${i & 255}`, null);
  t.equal(limiter.begin('10.1.3.231', null) > 0, true, 'a recent window is still there');
  t.equal(limiter.begin('10.1.0.0', null), 0, 'an old one was dropped to make room');
});

t.test('CSRF: the token is bound to the cookie value and checked in constant time', async (t) => {
  const guard = new CsrfGuard();
  const sid = 'a'.repeat(43);
  const token = guard.tokenFor(sid);
  t.equal(guard.verify(sid, token), true);
  t.equal(guard.verify('b'.repeat(43), token), false);
  t.equal(guard.verify(sid, token.slice(0, -1)), false);
  t.equal(guard.verify(sid, ''), false);
  t.equal(guard.verify('', guard.tokenFor('')), false, 'no cookie, no pass');
  t.equal(new CsrfGuard().verify(sid, token), false, 'a restarted server has a new secret');
});

t.test('CSRF: origin checks', async (t) => {
  t.equal(looksSameOrigin('', '', 'localhost:8080'), true, 'headers absent: the token decides');
  t.equal(looksSameOrigin('http://localhost:8080', 'same-origin', 'localhost:8080'), true);
  t.equal(looksSameOrigin('https://evil.example', '', 'localhost:8080'), false);
  t.equal(looksSameOrigin('', 'cross-site', 'localhost:8080'), false);
  t.equal(looksSameOrigin('', 'same-site', 'localhost:8080'), false);
  t.equal(looksSameOrigin('null', '', 'localhost:8080'), false);
  t.equal(looksSameOrigin('not a url', '', 'localhost:8080'), false);
});

t.test('cookie: flags and parsing', async (t) => {
  t.equal(sessionCookie('abcdefghijklmnopq', 60, false), `${SESSION_COOKIE}=abcdefghijklmnopq; Path=/console; HttpOnly; SameSite=Strict; Max-Age=60`);
  t.equal(sessionCookie('abcdefghijklmnopq', null, true), `${SESSION_COOKIE}=abcdefghijklmnopq; Path=/console; HttpOnly; SameSite=Strict; Secure`);
  const id = 'Z'.repeat(43);
  t.equal(sessionIdFrom(`theme=dark; ${SESSION_COOKIE}=${id}; x=1`), id);
  t.equal(sessionIdFrom(`${SESSION_COOKIE}=short`), '');
  t.equal(sessionIdFrom(`${SESSION_COOKIE}="${'a'.repeat(40)}"`), '', 'odd characters are refused');
  t.equal(sessionIdFrom(`${SESSION_COOKIE}=${'a'.repeat(65)}`), '', 'too long');
  t.equal(sessionIdFrom(''), '');
});

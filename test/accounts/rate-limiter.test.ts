import t from 'tap';
import { ManualClock } from '../../server/accounts/clock.js';
import { newDecision, RateLimiter } from '../../server/accounts/rate-limiter.js';
import { TIERS } from '../../server/config/tiers.js';

const T0 = Date.UTC(2025, 2, 3, 10, 0, 0); // a whole second

for (const name of ['free', 'pro', 'team', 'scale'] as const) {
  t.test(`GCRA per tier: ${name}`, async (t) => {
    const limit = TIERS[name].perMinute!;
    const interval = 60_000 / limit;
    const clock = new ManualClock(T0);
    const limiter = new RateLimiter({ clock });
    const d = newDecision();
    // A full minute's worth may arrive at once, counting down in the Remaining header.
    for (let i = 1; i <= limit; i++) {
      limiter.check('k', limit, d);
      if (!d.allowed || d.remaining !== limit - i || d.limit !== limit) {
        t.fail(`request ${i}: ${JSON.stringify(d)}`);
        return;
      }
    }
    t.equal(d.resetSeconds, (T0 + 60_000) / 1000, 'after a full burst the bucket is full again in a minute');
    limiter.check('k', limit, d);
    t.same(d, { allowed: false, limit, remaining: 0, resetSeconds: (T0 + 60_000) / 1000, retryAfterSeconds: Math.ceil(interval / 1000) });
    // Denied requests do not consume capacity: hammering changes nothing.
    for (let i = 0; i < 50; i++) limiter.check('k', limit, d);
    clock.advance(interval - 1);
    t.equal(limiter.check('k', limit, d).allowed, false, 'one ms early');
    clock.advance(1);
    t.equal(limiter.check('k', limit, d).allowed, true, 'exactly one emission interval later');
    t.equal(d.remaining, 0);
    t.equal(limiter.check('k', limit, d).allowed, false);
    // Other keys are independent.
    t.equal(limiter.check('other', limit, d).remaining, limit - 1);
    // A steady stream at the limit rate is always allowed.
    clock.advance(60_000);
    let denied = 0;
    for (let i = 0; i < limit * 3; i++) {
      if (!limiter.check('steady', limit, d).allowed) denied++;
      clock.advance(interval);
    }
    t.equal(denied, 0, 'a request every 60s/limit is never refused');
  });
}

t.test('first request: header values', async (t) => {
  const clock = new ManualClock(T0 + 250);
  const limiter = new RateLimiter({ clock });
  t.same(limiter.check('k', 60), { allowed: true, limit: 60, remaining: 59, resetSeconds: Math.ceil((T0 + 1250) / 1000), retryAfterSeconds: 0 });
  // The limiter never reports a wait under one second for a denial.
  const tight = new RateLimiter({ clock });
  tight.check('k', 1000);
  for (let i = 0; i < 999; i++) tight.check('k', 1000);
  const denied = tight.check('k', 1000);
  t.equal(denied.allowed, false);
  t.equal(denied.retryAfterSeconds, 1);
});

t.test('a slower limit applies at once to a busy key (degradation mid-minute)', async (t) => {
  const clock = new ManualClock(T0);
  const limiter = new RateLimiter({ clock });
  for (let i = 0; i < 300; i++) limiter.check('k', 300);
  const d = limiter.check('k', 60);
  t.equal(d.allowed, false, 'the burst already used a minute of capacity');
  t.equal(d.retryAfterSeconds, 1);
  clock.advance(1_000);
  t.equal(limiter.check('k', 60).allowed, true);
  t.equal(limiter.check('k', 60).allowed, false, 'now spaced at 60/min');
});

t.test('non-integer emission intervals keep exact counts', async (t) => {
  const clock = new ManualClock(T0);
  const limiter = new RateLimiter({ clock });
  let allowed = 0;
  let last = newDecision();
  for (let i = 0; i < 10; i++) {
    last = limiter.check('k', 7);
    if (last.allowed) allowed++;
  }
  t.equal(allowed, 7);
  clock.advance(60_000);
  t.equal(limiter.check('k', 7).remaining, 6, 'full again after a minute');
});

t.test('the table is bounded: idle entries are swept, then the oldest dropped', async (t) => {
  const clock = new ManualClock(T0);
  const limiter = new RateLimiter({ clock, maxEntries: 100 });
  for (let i = 0; i < 250; i++) limiter.check(`k${i}`, 60);
  t.ok(limiter.size <= 100, `size ${limiter.size}`);
  t.ok(limiter.size >= 50);
  clock.advance(999);
  t.equal(limiter.sweep(), 0, 'entries still refilling are kept');
  clock.advance(1);
  const before = limiter.size;
  t.equal(limiter.sweep(), before, 'sweep returns what it dropped');
  t.equal(limiter.size, 0, 'a refilled bucket carries no state and is dropped');
  // Idle entries are what make room first: an active key keeps its state.
  for (let i = 0; i < 60; i++) limiter.check('busy', 60);
  clock.advance(5_000);
  for (let i = 0; i < 150; i++) limiter.check(`idle${i}`, 60);
  clock.advance(2_000);
  for (let i = 0; i < 99; i++) limiter.check(`new${i}`, 60);
  t.equal(limiter.check('busy', 60).remaining, 6, 'busy key state survived the sweeps');
});

import t from 'tap';
import { ManualClock } from '../../server/accounts/clock.js';
import { loadConfig } from '../../server/config/load-config.js';
import { DemoLimiter } from '../../server/accounts/demo-limiter.js';
import { newDecision } from '../../server/accounts/rate-limiter.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 4, 1, 9, 0, 0);

t.test('10 per hour per IP; the window resets one hour after its first request', async (t) => {
  const clock = new ManualClock(T0);
  const demo = new DemoLimiter({ clock });
  const d = newDecision();
  const reset = (T0 + HOUR) / 1000;
  for (let i = 1; i <= 10; i++) {
    demo.check('203.0.113.7', d);
    t.same(d, { allowed: true, limit: 10, remaining: 10 - i, resetSeconds: reset, retryAfterSeconds: 0 }, `request ${i}`);
    clock.advance(60_000); // spread over ten minutes: the reset stays tied to the first request
  }
  demo.check('203.0.113.7', d);
  t.same(d, { allowed: false, limit: 10, remaining: 0, resetSeconds: reset, retryAfterSeconds: 50 * 60 });
  t.equal(demo.check('198.51.100.1').remaining, 9, 'another IP has its own window');
  clock.set(T0 + HOUR - 1);
  t.equal(demo.check('203.0.113.7').allowed, false, 'still refused 1 ms before the hour');
  t.equal(demo.check('203.0.113.7').retryAfterSeconds, 1);
  clock.set(T0 + HOUR);
  demo.check('203.0.113.7', d);
  t.same(d, { allowed: true, limit: 10, remaining: 9, resetSeconds: (T0 + 2 * HOUR) / 1000, retryAfterSeconds: 0 }, 'a new window');
});

t.test('DEMO_LIMIT_PER_HOUR is read and validated once', async (t) => {
  t.equal(loadConfig({}).demoLimitPerHour, 10);
  t.equal(loadConfig({ DEMO_LIMIT_PER_HOUR: '3' }).demoLimitPerHour, 3);
  t.throws(() => loadConfig({ DEMO_LIMIT_PER_HOUR: 'ten' }), /DEMO_LIMIT_PER_HOUR/);
  t.throws(() => loadConfig({ DEMO_LIMIT_PER_HOUR: '-1' }), /DEMO_LIMIT_PER_HOUR/);
  const demo = new DemoLimiter({ clock: new ManualClock(T0), limitPerHour: 3 });
  t.same([1, 2, 3, 4].map(() => demo.check('ip').allowed), [true, true, true, false]);
  const closed = new DemoLimiter({ clock: new ManualClock(T0), limitPerHour: 0 });
  t.equal(closed.check('ip').allowed, false, '0 turns the demo off');
});

t.test('the table is bounded; ended windows are swept first', async (t) => {
  const clock = new ManualClock(T0);
  const demo = new DemoLimiter({ clock, maxEntries: 1_000 });
  for (let i = 0; i < 5_000; i++) {
    demo.check(`10.0.${i >> 8}.${i & 255}`);
    clock.advance(1_000);
  }
  t.ok(demo.size <= 1_000, `size ${demo.size}`);
  // The most recent addresses keep their counts.
  for (let i = 0; i < 9; i++) demo.check('10.0.19.135'); // i = 4999
  t.equal(demo.check('10.0.19.135').allowed, false, 'a recent address was not forgotten');
  clock.advance(HOUR);
  const before = demo.size;
  t.equal(demo.sweep(), before, 'sweep drops ended windows');
  t.equal(demo.size, 0);
});

t.test('refund gives back one counted request of the current window, never more', async (t) => {
  const clock = new ManualClock(T0);
  const demo = new DemoLimiter({ clock, limitPerHour: 3 });
  demo.check('ip');
  demo.check('ip');
  t.same(demo.refund('ip'), { allowed: true, limit: 3, remaining: 2, resetSeconds: (T0 + HOUR) / 1000, retryAfterSeconds: 0 });
  t.equal(demo.refund('ip').remaining, 3);
  t.equal(demo.refund('ip').remaining, 3, 'nothing to give back: the count stays at 0');
  t.same([1, 2, 3, 4].map(() => demo.check('ip').allowed), [true, true, true, false], 'the limit holds after refunds');
  t.equal(demo.refund('never-seen').remaining, 3, 'an address without a window');
  clock.set(T0 + HOUR);
  t.equal(demo.refund('ip').remaining, 3, 'an ended window is not reopened');
  t.equal(demo.check('ip').remaining, 2);
});

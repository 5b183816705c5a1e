// The client's wait before a retry: full-jitter exponential backoff, and the service's own hint
// (Retry-After in seconds or as a date, else X-RateLimit-Reset) read from the answer's headers.
import t from 'tap';
import { backoffMs, serverWaitMs, sleep, type RetryPolicy } from '../../client/retry.js';

const policy: RetryPolicy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxWaitMs: 60_000 };

t.test('full jitter: uniform in [0, min(cap, base * 2^attempt)]', async (t) => {
  t.equal(backoffMs(0, policy, () => 0.999999), 99.9999);
  t.equal(backoffMs(3, policy, () => 0.5), 400);
  t.equal(backoffMs(10, policy, () => 1), 1_000, 'capped');
  t.equal(backoffMs(2, policy, () => 0), 0, 'the draw may be zero');
  const draws = Array.from({ length: 2_000 }, () => backoffMs(2, policy));
  t.ok(draws.every((d) => d >= 0 && d < 400));
  t.ok(Math.min(...draws) < 40 && Math.max(...draws) > 360, 'spread over the whole range');
});

t.test('the service hint: Retry-After (seconds or HTTP date), else X-RateLimit-Reset for a rate limit', async (t) => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  t.equal(serverWaitMs(new Headers({ 'retry-after': '2' }), false, now), 2_000);
  t.equal(serverWaitMs(new Headers({ 'retry-after': new Date(now + 5_000).toUTCString() }), false, now), 5_000);
  t.equal(serverWaitMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 30) }), true, now), 30_000);
  t.equal(serverWaitMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 30) }), false, now), null, 'the reset is a rate limit\'s hint only');
  t.equal(serverWaitMs(new Headers({ 'retry-after': '1', 'x-ratelimit-reset': String(now / 1000 + 30) }), true, now), 1_000, 'Retry-After wins');
  t.equal(serverWaitMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 - 30) }), true, now), 0, 'a reset in the past: no wait');
  t.equal(serverWaitMs(new Headers({ 'retry-after': '1', 'retry-after-ms': '12' }), true, now), 12, 'Retry-After-Ms (a push over its rate) wins');
  t.equal(serverWaitMs(new Headers({ 'retry-after': 'soon' }), false, now), null);
  t.equal(serverWaitMs(new Headers(), true, now), null);
});

t.test('sleep ends early, rejecting, when its signal fires', async (t) => {
  const controller = new AbortController();
  const started = performance.now();
  setTimeout(() => controller.abort(new Error('stop')), 20);
  await t.rejects(sleep(10_000, controller.signal), { message: 'stop' });
  t.ok(performance.now() - started < 5_000);
  await t.rejects(sleep(10, controller.signal), { message: 'stop' }, 'an aborted signal rejects at once');
});

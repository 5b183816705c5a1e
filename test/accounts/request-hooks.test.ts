// The two parts the server is handed (besides the key store), in process with a moved clock: the
// admission hook's decisions and headers, and the request observer's counting and logging rules.
import t from 'tap';
import type { AdmissionDecision } from '../../server/http/admission-hook.js';
import { ManualClock } from '../../server/accounts/clock.js';
import { Accounts } from '../../server/accounts/index.js';
import { RequestAdmission } from '../../server/accounts/request-admission.js';
import { RequestRecorder } from '../../server/accounts/request-recorder.js';
import type { KeyRecord } from '../../server/accounts/key-store.js';
import type { RequestRecord } from '../../server/observe/request-record.js';
import { tempDataDir } from './helpers.js';

const T0 = Date.UTC(2025, 6, 1, 12, 0, 0);
const free: KeyRecord = { id: 'key_freefreefreefree', accountId: 'key_freefreefreefree', tier: 'free', prefix: 'sk_live_free' };
const pro: KeyRecord = { id: 'key_proproproproprop', accountId: 'key_proproproproprop', tier: 'pro', prefix: 'sk_live_prop' };
const unlimited: KeyRecord = { id: 'key_unlimitedunlimi', accountId: 'key_unlimitedunlimi', tier: 'unlimited', prefix: 'sk_live_unli' };

async function open(t: Parameters<Parameters<typeof t.test>[1]>[0], demoLimitPerHour = 2) {
  const clock = new ManualClock(T0);
  const accounts = await Accounts.open({ dataDir: tempDataDir(t), clock, demoLimitPerHour, metadataThread: false });
  t.teardown(() => accounts.close());
  const admission = new RequestAdmission({ keyed: accounts.admission, demo: accounts.demo, clock });
  return { clock, accounts, admission };
}

const header = (d: { headers: readonly (readonly [string, string])[] | null }, name: string): string | undefined =>
  d.headers?.find(([n]) => n === name)?.[1];

t.test('keyed: tier limit headers, Retry-After on refusal, none for unlimited', async (t) => {
  const { clock, admission } = await open(t);
  const first = admission.admit('repair', free, '');
  t.same([first.allowed, header(first, 'X-RateLimit-Limit'), header(first, 'X-RateLimit-Remaining')], [true, '60', '59']);
  t.equal(header(first, 'X-RateLimit-Reset'), String(Math.ceil((T0 + 1_000) / 1000)));
  t.equal(header(first, 'Retry-After'), undefined);
  for (let i = 1; i < 60; i++) t.equal(admission.admit('stream_start', free, '').allowed, true);
  // Inside a session nothing more is counted: its start was (push-rate.ts bounds its pushes).
  for (const route of ['stream_push', 'stream_finalize']) {
    const inside = admission.admit(route, free, '') as AdmissionDecision;
    t.same([inside.allowed, header(inside, 'X-RateLimit-Remaining')], [true, '0'], `${route}: admitted, the headers as they stand`);
  }
  const refused = admission.admit('repair', free, '');
  t.equal(refused.allowed, false);
  if (!refused.allowed) {
    t.match(refused.error, { code: 'RATE_LIMIT_EXCEEDED', severity: 'high', recoverable: true, message: /60 requests per minute\. Retry in 1 s/ });
    t.equal(refused.retryAfterSeconds, 1);
  }
  t.same([header(refused, 'X-RateLimit-Remaining'), header(refused, 'Retry-After')], ['0', '1']);
  clock.advance(1_000);
  t.equal(admission.admit('repair', free, '').allowed, true, 'one request refills per second');
  const u = admission.admit('repair', unlimited, '');
  t.same([u.allowed, u.headers], [true, null]);
});

t.test('past the quota: the degraded rate and the QUOTA_EXCEEDED warning', async (t) => {
  const { accounts, admission } = await open(t);
  const normal = admission.admit('repair', pro, '');
  t.same([header(normal, 'X-RateLimit-Limit'), normal.allowed && normal.warnings], ['300', null]);
  accounts.quota.record(pro.id, 100_000);
  const degraded = admission.admit('repair', pro, '');
  t.equal(header(degraded, 'X-RateLimit-Limit'), '30');
  t.match(degraded.allowed && degraded.warnings, [{ code: 'QUOTA_EXCEEDED', severity: 'medium' }]);
});

t.test('demo: per client IP (IPv6 per /64), headers on every answer; 0 turns it off', async (t) => {
  const { admission } = await open(t);
  t.equal(admission.admit('demo', undefined, '203.0.113.1').allowed, true);
  const second = admission.admit('demo', undefined, '203.0.113.1');
  t.same([second.allowed, header(second, 'X-RateLimit-Limit'), header(second, 'X-RateLimit-Remaining')], [true, '2', '0']);
  t.equal(header(second, 'X-RateLimit-Reset'), String((T0 + 3_600_000) / 1000));
  const third = admission.admit('demo', undefined, '203.0.113.1');
  t.equal(third.allowed, false);
  t.same([header(third, 'Retry-After'), header(third, 'X-RateLimit-Remaining')], ['3600', '0']);
  t.equal(admission.admit('demo', undefined, '203.0.113.2').allowed, true, 'another IP');
  t.equal(admission.admit('repair', free, '203.0.113.1').allowed, true, 'keyed requests ignore the demo window');
  t.equal(admission.admit('web_page', undefined, '203.0.113.1').headers, null, 'other keyless routes pass untouched');
  admission.admit('demo', undefined, '2001:db8::1');
  admission.admit('demo', undefined, '2001:db8::2');
  t.equal(admission.admit('demo', undefined, '2001:db8::ffff:3').allowed, false, 'same /64');

  const off = (await open(t, 0)).admission.admit('demo', undefined, '203.0.113.9');
  t.equal(off.allowed, false);
  if (!off.allowed) t.match(off.error.message, /turned off/);
});

t.test('recorder: what counts as a repair, which requests get a metadata row', async (t) => {
  const { accounts } = await open(t);
  const recorder = new RequestRecorder({ quota: accounts.quota, metadata: accounts.metadata });
  const record = (over: Partial<RequestRecord>): void => recorder.onRequest({
    time: T0, requestId: 'r', route: 'repair', keyId: pro.id, accountId: pro.accountId, contract: 'envelope', status: 200, outcome: 'ok',
    confidence: 'high', repairCounts: { closed_string: 1 }, inputBytes: 10, latencyMs: 1, execution: 'inline', ...over,
  });
  record({});
  record({ execution: 'pool', outcome: 'UNRECOVERABLE_SYNTAX_ERROR', confidence: null });
  record({ route: 'stream_start', execution: 'stream' });
  t.equal(accounts.quota.count(pro.id), 3, 'repairs that reached the engine, and a session start');
  record({ outcome: 'INVALID_REQUEST' });
  record({ outcome: 'PAYLOAD_TOO_LARGE' });
  record({ execution: 'pool', outcome: 'INTERNAL_ERROR' });
  record({ execution: 'none', outcome: 'RATE_LIMIT_EXCEEDED' });
  record({ execution: 'none', outcome: 'aborted' });
  record({ route: 'stream_push', execution: 'stream' });
  record({ route: 'stream_finalize', execution: 'stream' });
  record({ route: 'demo', keyId: null });
  record({ route: 'usage', execution: 'none', contract: null });
  t.equal(accounts.quota.count(pro.id), 3, 'nothing else counts');
  const logged = accounts.metadata.pending;
  record({ route: 'health', keyId: null });
  record({ route: 'metrics', keyId: null });
  record({ route: 'not_found', keyId: null });
  record({ route: 'web_page', keyId: null });
  t.equal(accounts.metadata.pending, logged, 'probes, scrapes, pages and unknown paths get no row');
  t.equal(logged, 12, 'every API request got one');
  t.equal(await accounts.metadata.flush(), 12);
});

t.test('session calls naming no open session are charged: past the tier rate the account\'s pushes are refused', async (t) => {
  const { clock, admission } = await open(t);
  for (let i = 0; i < 60; i++) {
    t.equal(admission.admit('stream_push', free, '').allowed, true);
    admission.unmatched('stream_push', free);
  }
  const refused = admission.admit('stream_finalize', free, '');
  t.equal(refused.allowed, false);
  if (!refused.allowed) t.match(refused.error, { code: 'RATE_LIMIT_EXCEEDED', message: /named no open streaming session/ });
  t.equal(header(refused, 'Retry-After'), '1');
  t.equal(admission.admit('repair', free, '').allowed, true, 'its requests are not: the two are counted apart');
  clock.advance(1_000);
  t.equal(admission.admit('stream_push', free, '').allowed, true, 'one refills per second');
});

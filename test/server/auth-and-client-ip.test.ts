// The in-memory key store, the Authorization parser and client-IP resolution, in process.
import t from 'tap';
import { authenticate } from '../../server/auth/authenticate.js';
import { MemoryKeyStore } from '../../server/auth/key-store.js';
import { ClientIpResolver, normalizeAddress } from '../../server/http/client-ip.js';

t.test('MemoryKeyStore keeps digests only and finds exact keys', async (t) => {
  const store = new MemoryKeyStore([{ key: 'sk_live_abcdefghijklmnop', tier: 'pro' }, { key: 'short-key', tier: 'free' }]);
  t.equal(store.size, 2);
  t.match(store.lookup('sk_live_abcdefghijklmnop'), { tier: 'pro', prefix: 'sk_live_abcd', id: /^env_[0-9a-f]{16}$/ });
  t.match(store.lookup('short-key'), { tier: 'free', prefix: 'shor' });
  t.equal(store.lookup('short-ke'), undefined);
  t.equal(store.lookup('short-key '), undefined);
  t.equal(store.lookup(''), undefined);
  t.equal(store.lookup('x'.repeat(10_000)), undefined);
});

t.test('authenticate', async (t) => {
  const store = new MemoryKeyStore([{ key: 'k-123456', tier: 'team' }]);
  t.match(authenticate('Bearer k-123456', store), { ok: true, key: { tier: 'team' } });
  t.match(authenticate('BEARER   k-123456  ', store), { ok: true });
  t.match(authenticate('', store), { ok: false, error: { code: 'INVALID_API_KEY', message: /Missing/ } });
  t.match(authenticate('k-123456', store), { ok: false, error: { message: /Malformed/ } });
  t.match(authenticate('Bearer', store), { ok: false, error: { message: /Malformed/ } });
  t.match(authenticate('Bearer a b', store), { ok: false, error: { message: /Malformed/ } });
  t.match(authenticate('Bearer k-1234567', store), { ok: false, error: { code: 'INVALID_API_KEY', severity: 'critical', recoverable: false } });
});

t.test('normalizeAddress', async (t) => {
  t.equal(normalizeAddress('127.0.0.1'), '127.0.0.1');
  t.equal(normalizeAddress('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
  t.equal(normalizeAddress('::ffff:10.1.2.3'), '10.1.2.3');
  t.equal(normalizeAddress('0000:0000:0000:0000:0000:0000:0000:0001'), '0000:0000:0000:0000:0000:0000:0000:0001');
});

t.test('ClientIpResolver believes X-Forwarded-For only from trusted proxies', async (t) => {
  const none = new ClientIpResolver([]);
  t.equal(none.resolve('10.0.0.5', '1.2.3.4'), '10.0.0.5');
  const trusting = new ClientIpResolver(['10.0.0.0/8', '192.168.1.1']);
  t.equal(trusting.resolve('10.0.0.5', '1.2.3.4'), '1.2.3.4');
  t.equal(trusting.resolve('10.0.0.5', '6.6.6.6, 1.2.3.4, 192.168.1.1'), '1.2.3.4', 'rightmost untrusted hop');
  t.equal(trusting.resolve('8.8.8.8', '1.2.3.4'), '8.8.8.8', 'an untrusted peer cannot claim an address');
  t.equal(trusting.resolve('10.0.0.5', ''), '10.0.0.5');
  t.equal(trusting.resolve('10.0.0.5', 'garbage'), '10.0.0.5');
  t.equal(trusting.resolve('0000:0000:0000:0000:0000:ffff:0a00:0005', '1.2.3.4'), '1.2.3.4');
});

// The in-memory key store, the Authorization parser and client-IP resolution, in process.
import t from 'tap';
import { authenticate } from '../../server/accounts/authenticate.js';
import { MemoryKeyStore } from '../../server/accounts/key-store.js';
import { ClientIpResolver, limitKeyForIp, normalizeAddress } from '../../server/http/client-ip.js';

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
  t.equal(normalizeAddress('0000:0000:0000:0000:0000:ffff:0a01:0203'), '10.1.2.3', 'uWS long form');
  t.equal(normalizeAddress('2001:DB8::1'), '2001:db8::1', 'IPv6 in lower case');
  t.equal(normalizeAddress('unknown'), 'unknown', 'not an address: left as is (never trusted)');
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
  t.equal(trusting.resolve('10.0.0.2', '6.6.6.6, 203.0.113.7, 10.0.0.9'), '203.0.113.7', 'a chain of trusted proxies is skipped');
  t.equal(trusting.resolve('10.0.0.2', '10.0.0.5,10.0.0.9'), '10.0.0.5', 'all hops are proxies: the leftmost is the origin');
  t.equal(trusting.resolve('10.0.0.2', 'garbage, 10.0.0.9'), '10.0.0.2', 'an unparsable hop: the socket peer');
  t.equal(trusting.resolve('10.0.0.2', '::ffff:203.0.113.7'), '203.0.113.7', 'a mapped hop');
  const v6 = new ClientIpResolver(['2001:db8:ff::/48', '::1']);
  t.equal(v6.resolve('::1', '2001:db8::7'), '2001:db8::7');
  t.equal(v6.resolve('::1', '2001:db8::7, 2001:db8:ff:1::9'), '2001:db8::7', 'a trusted IPv6 range');
});

t.test('limit key: IPv4 as is, IPv6 by /64', async (t) => {
  t.equal(limitKeyForIp('203.0.113.7'), '203.0.113.7');
  t.equal(limitKeyForIp('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(limitKeyForIp('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  t.equal(limitKeyForIp('2001:db8::1'), '2001:db8:0:0::/64');
  t.equal(limitKeyForIp('::1'), '0:0:0:0::/64');
  t.equal(limitKeyForIp('2001:0db8:0001:0002:0000:0000:0000:0001'), '2001:db8:1:2::/64', 'uWS long form');
});

import t from 'tap';
import { clientIp, limitKeyForIp, normalizeIp, parseTrustProxy } from '../../server/accounts/client-ip.js';

t.test('normalizeIp', async (t) => {
  t.equal(normalizeIp('203.0.113.7'), '203.0.113.7');
  t.equal(normalizeIp(' 203.0.113.7:5123 '), '203.0.113.7', 'port dropped');
  t.equal(normalizeIp('::ffff:10.1.2.3'), '10.1.2.3', 'IPv4-mapped');
  t.equal(normalizeIp('0000:0000:0000:0000:0000:ffff:0a01:0203'), '10.1.2.3', 'uWS long form');
  t.equal(normalizeIp('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  t.equal(normalizeIp('[2001:db8::1]:443'), '2001:db8::1');
  t.equal(normalizeIp('fe80::1%eth0'), 'fe80::1');
  for (const bad of ['', 'unknown', '1.2.3', '300.1.1.1', 'example.com', '[::1']) t.equal(normalizeIp(bad), undefined, bad);
});

t.test('TRUST_PROXY parsing', async (t) => {
  t.equal(parseTrustProxy(undefined).enabled, false);
  t.equal(parseTrustProxy(' , ').enabled, false);
  const trust = parseTrustProxy('10.0.0.0/8, 192.0.2.1 ,2001:db8:ff::/48,loopback');
  t.equal(trust.enabled, true);
  t.ok(trust.trusts('10.200.3.4'));
  t.ok(trust.trusts('192.0.2.1'));
  t.notOk(trust.trusts('192.0.2.2'));
  t.ok(trust.trusts('2001:db8:ff:1::9'));
  t.notOk(trust.trusts('2001:db8:fe::9'));
  t.ok(trust.trusts('127.0.0.1'));
  t.ok(trust.trusts('::1'));
  t.notOk(trust.trusts('not-an-ip'));
  for (const bad of ['10.0.0.0/33', '10.0.0.0/', 'proxy.local', '10.0.0.0/8/8', '::/129', '1.2.3.4/x']) {
    t.throws(() => parseTrustProxy(bad), /TRUST_PROXY/, bad);
  }
});

t.test('client IP: socket unless a trusted proxy forwarded, walking right to left', async (t) => {
  const none = parseTrustProxy('');
  t.equal(clientIp('203.0.113.7', '1.1.1.1', none), '203.0.113.7', 'no TRUST_PROXY: X-Forwarded-For ignored');
  const trust = parseTrustProxy('10.0.0.0/8');
  t.equal(clientIp('198.51.100.9', '1.1.1.1', trust), '198.51.100.9', 'socket is not a trusted proxy');
  t.equal(clientIp('10.0.0.2', undefined, trust), '10.0.0.2', 'trusted proxy, no header');
  t.equal(clientIp('10.0.0.2', '203.0.113.7', trust), '203.0.113.7');
  t.equal(clientIp('10.0.0.2', '6.6.6.6, 203.0.113.7', trust), '203.0.113.7', 'spoofed entries left of the client are ignored');
  t.equal(clientIp('10.0.0.2', '6.6.6.6, 203.0.113.7, 10.0.0.9', trust), '203.0.113.7', 'chain of trusted proxies skipped');
  t.equal(clientIp('10.0.0.2', '10.0.0.5,10.0.0.9', trust), '10.0.0.5', 'all proxies: the leftmost is the origin');
  t.equal(clientIp('::ffff:10.0.0.2', '203.0.113.7', trust), '203.0.113.7', 'mapped socket address');
  t.equal(clientIp('10.0.0.2', 'garbage, 10.0.0.9', trust), '10.0.0.9', 'unparsable hop: the last believed hop');
  t.equal(clientIp('10.0.0.2', '[2001:db8::7]:1234', trust), '2001:db8::7');
});

t.test('limit key: IPv4 as is, IPv6 by /64', async (t) => {
  t.equal(limitKeyForIp('203.0.113.7'), '203.0.113.7');
  t.equal(limitKeyForIp('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(limitKeyForIp('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  t.equal(limitKeyForIp('2001:db8::1'), '2001:db8:0:0::/64');
  t.equal(limitKeyForIp('::1'), '0:0:0:0::/64');
});

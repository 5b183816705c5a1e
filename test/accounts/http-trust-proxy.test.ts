// TRUST_PROXY through HTTP: with 127.0.0.1 trusted (the test client plays the proxy), the demo
// limit follows the client address in X-Forwarded-For, read right to left; what a client prepends
// is not believed (in the same line or a line of its own), and IPv6 clients share a limit per /64.
import t from 'tap';
import { fetchFrom } from '../../support/haproxy.js';
import { startServer } from '../helpers/start-server.js';
import { demo, errorCodeOf, limitHeaders } from './http-helpers.js';

const server = await startServer(t, { DEMO_LIMIT_PER_HOUR: '3', TRUST_PROXY: '127.0.0.1' });
const from = (xff: string | null) => demo(server.url, { raw_output: '[1,' }, xff === null ? {} : { 'x-forwarded-for': xff });

interface Asserts { equal(found: unknown, wanted: unknown, message?: string): unknown }

async function useUp(t: Asserts, xff: string): Promise<void> {
  for (let i = 0; i < 3; i++) t.equal((await from(xff)).body.success, true, `${xff} request ${i + 1}`);
  t.equal(errorCodeOf(await from(xff)), 'RATE_LIMIT_EXCEEDED', `${xff} request 4 refused`);
}

t.test('each forwarded client has its own window; the proxy itself has another', async (t) => {
  await useUp(t, '203.0.113.7');
  const other = await from('203.0.113.8');
  t.equal(other.body.success, true);
  t.equal(limitHeaders(other).remaining, 2, 'a fresh window for another client');
  const direct = await from(null);
  t.equal(limitHeaders(direct).remaining, 2, 'no X-Forwarded-For: the socket address (127.0.0.1)');
});

t.test('only the rightmost untrusted hop counts', async (t) => {
  t.equal(errorCodeOf(await from('6.6.6.6, 203.0.113.7')), 'RATE_LIMIT_EXCEEDED', 'a prepended address is not believed');
  t.equal(errorCodeOf(await from('203.0.113.7, 127.0.0.1')), 'RATE_LIMIT_EXCEEDED', 'trusted hops are skipped');
  const next = await from('203.0.113.7, 198.51.100.20');
  t.equal(next.body.success, true, 'the proxy vouches for 198.51.100.20, not for 203.0.113.7');
  t.equal(limitHeaders(next).remaining, 2);
});

t.test('IPv6 clients are limited per /64', async (t) => {
  await useUp(t, '2001:db8:1:2::1');
  t.equal(errorCodeOf(await from('2001:db8:1:2:ffff::9')), 'RATE_LIMIT_EXCEEDED', 'same /64');
  t.equal((await from('2001:db8:1:3::1')).body.success, true, 'another /64');
});

t.test('every X-Forwarded-For line counts: a line the proxy adds after the client\'s own is the one read', async (t) => {
  const send = fetchFrom('127.0.0.1');
  const twoLines = async (): Promise<any> => (await send(`${server.url}/v1/demo/repair`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ['6.6.6.7', '198.51.100.77'] }, body: '{"raw_output":"[1,"}',
  })).json();
  for (let i = 0; i < 3; i++) t.equal((await twoLines()).success, true, `request ${i + 1}`);
  t.equal((await twoLines()).metadata.errors[0].code, 'RATE_LIMIT_EXCEEDED', 'request 4 refused: the window is 198.51.100.77\'s');
  t.equal(limitHeaders(await from('6.6.6.7')).remaining, 2, 'the address the client wrote was never charged');
});

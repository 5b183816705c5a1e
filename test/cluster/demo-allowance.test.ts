// The demo's allowance is spent only by requests it serves, on two real nodes sharing Redis (and
// PostgreSQL): a body that is not JSON, misses its field or is too large is refused without
// spending any, and every demo answer — those refusals and the limit's own 429 included — carries
// the X-RateLimit-* headers, and in the compact contract `demo` and `message` too.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { demo, limitHeaders } from '../accounts/http-helpers.js';
import { type StartedServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { startCluster } from './cluster-helpers.js';

const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { DEMO_LIMIT_PER_HOUR: '3', MAX_PAYLOAD_BYTES: '1024' } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const redisCli = (...args: string[]): string => execFileSync('redis-cli', ['-s', cluster.redis!.socket, ...args], { encoding: 'utf8' }).trim();
const refundsLanded = (): boolean => redisCli('--scan', '--pattern', 'jm:demo:*').split('\n').filter(Boolean).every((key) => Number(redisCli('GET', key)) === 0);
const demoCode = (body: any): string | undefined => body?.metadata?.errors?.[0]?.code ?? body?.errors?.[0]?.code;

t.test('bad demo requests through either node spend nothing and carry the headers', async (t) => {
  const tooLarge = JSON.stringify({ raw_output: 'x'.repeat(2 * 1024 * 1024) });
  const bad: Array<[string, string, string]> = [
    ['not JSON', '{"raw_output": "[1,', 'INVALID_REQUEST'],
    ['no field', '{}', 'INVALID_REQUEST'],
    ['a field of the wrong type', '{"raw_output": 5}', 'INVALID_REQUEST'],
    ['a compact body without content', '{"content": 5}', 'INVALID_REQUEST'],
    ['a body over the limit', tooLarge, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const [name, body, code] of bad) {
    for (const node of [a, b]) {
      const answer = await demo(node.url, body);
      t.equal(demoCode(answer.body), code, `${name}: ${code}`);
      t.equal(answer.body.demo, true, `${name}: a demo answer`);
      const h = limitHeaders(answer);
      t.same([h.limit, h.remaining], [3, 3], `${name} via ${node === a ? 'node-a' : 'node-b'}: the headers, nothing spent`);
    }
  }
  // Refunds are sent to Redis without waiting: wait until every demo window there is back to 0.
  t.ok(await msUntil(10_000, async () => refundsLanded()) < Infinity, 'the refunds have reached Redis');
  const served = await demo(a.url, { raw_output: '[1,' });
  t.equal(served.body.success, true);
  t.equal(limitHeaders(served).remaining, 2, 'the first served request spends the first of three');
});

t.test('once spent: an oversized request still carries the headers, and the compact 429 says demo and message', async (t) => {
  await demo(a.url, { raw_output: '[2,' });
  await demo(a.url, { raw_output: '[3,' });
  const refused = await demo(a.url, { content: '[4,' });
  t.equal(refused.status, 429);
  t.match(refused.body, { error: /3 requests per hour/, retryAfter: Number, demo: true, message: /demo/ });
  t.equal(limitHeaders(refused).remaining, 0);
  const large = await demo(a.url, JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) }));
  t.equal(demoCode(large.body), 'PAYLOAD_TOO_LARGE');
  const h = limitHeaders(large);
  t.same([h.limit, h.remaining], [3, 0], 'PAYLOAD_TOO_LARGE carries the X-RateLimit-* headers');
});

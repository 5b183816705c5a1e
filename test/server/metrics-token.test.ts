// METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`
// and /health shows its details (version, backend, pool, ...) only to that bearer; the public sees
// the status alone. Unset, both stay open as before.
import t from 'tap';
import { bearer, expectRefusal, startServer } from '../helpers/start-server.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const KEY = 'metrics-token-test-key-1';

t.test('METRICS_TOKEN set: /metrics needs the bearer, /health details too', async (t) => {
  const server = await startServer(t, { METRICS_TOKEN: TOKEN, API_KEYS: `${KEY}:pro` });
  const refusals: [string, Record<string, string>][] = [
    ['no Authorization', {}],
    ['a wrong token', bearer('metrics-token-0123456789abcdeX')],
    ['a prefix of the token', bearer(TOKEN.slice(0, -1))],
    ['an API key', bearer(KEY)],
    ['another scheme', { authorization: `Basic ${TOKEN}` }],
  ];
  for (const [label, headers] of refusals) {
    const response = await fetch(`${server.url}/metrics`, { headers });
    t.equal(response.status, 401, `${label}: 401`);
    t.match(response.headers.get('www-authenticate'), /^Bearer /, `${label}: WWW-Authenticate`);
    t.equal(response.headers.get('content-type'), 'application/json');
    const body = await response.json();
    t.match(body, { success: false, metadata: { errors: [{ code: 'INVALID_API_KEY', message: /METRICS_TOKEN/ }] } }, label);
    t.notMatch(JSON.stringify(body), /jsonmend_requests_total/, `${label}: no metric leaks`);
  }
  const scrape = await fetch(`${server.url}/metrics`, { headers: bearer(TOKEN) });
  t.equal(scrape.status, 200, 'the token opens /metrics');
  t.match(await scrape.text(), /jsonmend_requests_total\{route="metrics",outcome="INVALID_API_KEY"\} 5/);
  const lower = await fetch(`${server.url}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } });
  t.equal(lower.status, 200, 'the scheme is case-insensitive');
  const head = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
  t.equal(head.status, 401, 'HEAD is guarded the same way');

  const publicHealth = await fetch(`${server.url}/health`);
  t.equal(publicHealth.status, 200);
  t.same(await publicHealth.json(), { status: 'ok' }, 'the public sees the status only');
  const wrong = await fetch(`${server.url}/health`, { headers: bearer('not-the-token-at-all-0000') });
  t.same(await wrong.json(), { status: 'ok' }, 'a wrong token sees the status only');
  const detailed = await (await fetch(`${server.url}/health`, { headers: bearer(TOKEN) })).json();
  t.match(detailed, { status: 'ok', version: String, uws: 'native', contract: 'auto', pool: { workers: 1, threads: 1 } }, 'the bearer sees the details');
});

t.test('METRICS_TOKEN unset: /metrics and the /health details open as before', async (t) => {
  const server = await startServer(t, {});
  const scrape = await fetch(`${server.url}/metrics`);
  t.equal(scrape.status, 200);
  const text = await scrape.text();
  t.match(text, /jsonmend_requests_total/);
  t.match(text, /jsonmend_build_info\{version="[^"]+",uws="native",uws_package="[^"]+",contract="auto"\} 1/, 'version and backend are on /metrics');
  t.match(await (await fetch(`${server.url}/health`)).json(), { status: 'ok', version: String, uws: 'native', pool: { workers: 1 } });
});

t.test('a METRICS_TOKEN too short to be a secret stops the start', async (t) => {
  const refused = await expectRefusal({ METRICS_TOKEN: 'short' });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /METRICS_TOKEN must/);
  t.notMatch(refused.stderr, /short/, 'the value is not echoed');
});

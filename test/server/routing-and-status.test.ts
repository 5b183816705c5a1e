// 404, 405, /health and /metrics.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'routing-test-key-1';
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2', QUEUE_MAX: '7' });

t.test('unknown paths get a JSON 404, wrong methods a JSON 405 with Allow', async (t) => {
  const cases: [string, string, number, string | null][] = [
    ['GET', '/nope', 404, null], // '/' is the playground (docs/web.md)
    ['GET', '/v1', 404, null],
    ['POST', '/v1/repair/', 404, null],
    ['POST', '/v1/repair/stream/nope', 404, null],
    ['GET', '/v1/repair/stream/start', 405, 'POST'],
    ['GET', '/v1/repair', 405, 'POST'],
    ['PUT', '/v1/repair', 405, 'POST'],
    ['DELETE', '/v1/demo/repair', 405, 'POST'],
    ['POST', '/health', 405, 'GET, HEAD'],
    ['POST', '/metrics', 405, 'GET, HEAD'],
  ];
  for (const [method, path, status, allow] of cases) {
    const response = await fetch(server.url + path, { method, headers: { 'x-request-id': `route-${status}` } });
    t.equal(response.status, status, `${method} ${path}`);
    t.equal(response.headers.get('content-type'), 'application/json');
    t.equal(response.headers.get('x-request-id'), `route-${status}`);
    t.equal(response.headers.get('allow'), allow);
    const body = await response.json();
    t.equal(body.success, false);
    t.equal(body.metadata.errors[0].code, status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
  }
});

t.test('/health reports status, version, uWS backend and the pool', async (t) => {
  const response = await fetch(`${server.url}/health`);
  t.equal(response.status, 200);
  t.ok(response.headers.get('x-request-id'));
  const body = await response.json();
  const { version } = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')));
  t.match(body, {
    status: 'ok',
    version,
    uws: 'native',
    contract: 'auto',
    pool: { workers: 2, threads: 2, queueDepth: 0, activeTasks: 0, queueMax: 7 },
  });
});

t.test('/metrics: Prometheus text with requests, latency, repairs, pool gauges', async (t) => {
  const auth = bearer(KEY);
  await postJson(`${server.url}/v1/repair`, { raw_output: '{"a":1' }, auth);
  await postJson(`${server.url}/v1/repair`, { raw_output: '{"a":2' }, auth);
  await postJson(`${server.url}/v1/repair`, { raw_output: '{}' });
  await postJson(`${server.url}/v1/demo/repair`, { raw_output: '[]' });
  const response = await fetch(`${server.url}/metrics`);
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  t.ok(response.headers.get('x-request-id'));
  const text = await response.text();
  const value = (series: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(series + ' '));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  t.equal(value('jsonmend_requests_total{route="repair",outcome="ok"}'), 2);
  t.equal(value('jsonmend_requests_total{route="repair",outcome="INVALID_API_KEY"}'), 1);
  t.equal(value('jsonmend_requests_total{route="demo",outcome="ok"}'), 1);
  t.ok(value('jsonmend_requests_total{route="not_found",outcome="NOT_FOUND"}')! >= 1);
  t.equal(value('jsonmend_repairs_total{type="closed_object_bracket"}'), 2);
  t.equal(value('jsonmend_request_duration_seconds_count{route="repair"}'), 3);
  t.equal(value('jsonmend_request_duration_seconds_bucket{route="repair",le="+Inf"}'), 3);
  t.equal(value('jsonmend_pool_workers'), 2);
  t.equal(value('jsonmend_pool_threads'), 2);
  t.equal(value('jsonmend_pool_queue_depth'), 0);
  t.equal(value('jsonmend_pool_utilization'), 0);
  t.equal(value('jsonmend_tasks_total{execution="inline"}'), 3);
  t.match(text, /# TYPE jsonmend_request_duration_seconds histogram/);
  // Buckets are cumulative.
  const buckets = text.split('\n').filter((l) => l.startsWith('jsonmend_request_duration_seconds_bucket{route="repair"')).map((l) => Number(l.split(' ')[1]));
  t.same(buckets, [...buckets].sort((a, b) => a - b));
  // Every line is a comment or `name{labels} number`.
  for (const line of text.trim().split('\n')) t.match(line, /^(# (HELP|TYPE) .+|[a-z_][a-z0-9_]*(\{[^}]*\})? -?[0-9.e+-]+)$/);
});

// SIGTERM: the listen socket closes at once, requests in flight (running and queued) are answered,
// then the process exits 0.
import { connect } from 'node:net';
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'shutdown-test-key-1';

function canConnect(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

t.test('SIGTERM finishes in-flight requests, refuses new connections, exits 0', async (t) => {
  const server = await startServer(t, {
    API_KEYS: `${KEY}:unlimited`, WORKERS: '1', INLINE_MAX_BYTES: '0', JSONMEND_TEST_HOOKS: '1', LOG_LEVEL: 'info',
  });
  const url = `${server.url}/v1/repair`;
  const inFlight = [
    postJson(url, { raw_output: '{"n": "__JSONMEND_TEST_SLEEP_MS=600__", "a": 1' }, bearer(KEY)),
    postJson(url, { content: '{"n": "__JSONMEND_TEST_SLEEP_MS=300__", "b": 2' }, bearer(KEY)),
  ];
  await new Promise((resolve) => setTimeout(resolve, 150));
  const exited = server.stop('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(await canConnect(server.url), false, 'the listen socket is closed');
  const [first, second] = await Promise.all(inFlight);
  t.same(first.body.repaired, { n: '__JSONMEND_TEST_SLEEP_MS=600__', a: 1 });
  t.equal(second.body.valid, true);
  t.equal(second.body.repaired, '{"n":"__JSONMEND_TEST_SLEEP_MS=300__","b":2}');
  t.same(await exited, { code: 0, signal: null });
  t.match(server.stdout(), /"msg":"stopped"/);
});

t.test('SIGINT on an idle server exits 0 at once', async (t) => {
  const server = await startServer(t, {});
  const started = performance.now();
  t.same(await server.stop('SIGINT'), { code: 0, signal: null });
  t.ok(performance.now() - started < 3000);
});

// SIGTERM: the listen socket closes at once, requests in flight (running and queued) are answered,
// then the process exits 0.
import { connect } from 'node:net';
import t from 'tap';
import { DRAIN_QUIET_MS } from '../../server/http/lifecycle.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';

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
  // SIGTERM once both are in the server (one running, one queued behind it), not after a guessed pause.
  const inflight = async (): Promise<number> => (await (await fetch(`${server.url}/health`)).json() as any).inflightRequests;
  t.ok(await msUntil(10_000, async () => (await inflight()) === 2) < Infinity, 'both requests in flight');
  let hasExited = false;
  const exited = server.stop('SIGTERM').finally(() => { hasExited = true; });
  t.ok(await msUntil(10_000, async () => !(await canConnect(server.url))) < Infinity, 'the listen socket is closed');
  t.equal(hasExited, false, 'while the server is still draining');
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

/** One keep-alive connection: `send(body)` writes a request and resolves with the next whole answer. */
function keepAliveClient(url: string, key: string): { send(body: string): Promise<string>; close(): void } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.setEncoding('utf8');
  let raw = '';
  let waiting: ((answer: string) => void) | null = null;
  const check = (): void => {
    const headEnd = raw.indexOf('\r\n\r\n');
    const length = /content-length: *(\d+)/i.exec(raw.slice(0, headEnd));
    if (headEnd === -1 || length === null || raw.length < headEnd + 4 + Number(length[1])) return;
    const answer = raw.slice(0, headEnd + 4 + Number(length[1]));
    raw = raw.slice(answer.length);
    waiting?.(answer);
  };
  socket.on('data', (text: string) => {
    raw += text;
    check();
  });
  socket.on('close', () => waiting?.(`closed before an answer: ${raw}`));
  socket.on('error', () => undefined);
  return {
    send(body) {
      socket.write(`POST /v1/repair HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    close: () => socket.destroy(),
  };
}

t.test('a request that arrives on an idle keep-alive connection just after SIGTERM is still repaired', async (t) => {
  // Every repair goes to the pool: without the drain's quiet window the pool closed as soon as
  // nothing was in flight, and this late request met it closing. The drain waits DRAIN_QUIET_MS
  // with no new request, so a request sent well inside that window must be served; a busy machine
  // that delayed it past the window may find the connection closed (the drain working): again, at
  // most three times.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', INLINE_MAX_BYTES: '0' });
    const client = keepAliveClient(server.url, KEY);
    t.teardown(() => client.close());
    const first = await client.send(JSON.stringify({ raw_output: '[1, 2' }));
    t.match(first, /^HTTP\/1\.1 200/, 'the first request is answered and the connection stays open');
    const signalled = performance.now();
    const exited = server.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 40));
    const sentAfter = performance.now() - signalled;
    const late = await client.send(JSON.stringify({ raw_output: '{"late": true' }));
    if (sentAfter >= DRAIN_QUIET_MS / 2 && !/^HTTP\/1\.1 200/.test(late)) {
      t.comment(`attempt ${attempt}: sent ${sentAfter.toFixed(0)} ms after SIGTERM, not inside the ${DRAIN_QUIET_MS} ms window for certain; again`);
      t.same(await exited, { code: 0, signal: null });
      continue;
    }
    t.match(late, /^HTTP\/1\.1 200/, `the late request (sent ${sentAfter.toFixed(0)} ms after SIGTERM) is answered 200`);
    t.match(late, /\r\nconnection: close\r\n/i, 'and its answer closes the connection');
    t.match(late, /"repaired":\{"late":true\}/, 'with its repair');
    t.same(await exited, { code: 0, signal: null });
    return;
  }
  t.fail('three attempts each sent the late request past the quiet window');
});

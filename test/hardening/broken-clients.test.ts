// Broken clients, over raw sockets: a Content-Length larger than the body, a
// disconnect while the repair runs and while the answer is being written, a client that pipelines
// requests for large answers without reading any (backpressure), and a slow reader, which must get
// every byte. After each: nothing in flight, nothing on stderr, /health fine.
import { connect } from 'node:net';
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { KEY, type Assert, assertHealthy, healthStatus, postHead, rawExchange, rssMb, sleep, unexpectedStderr } from './helpers.js';

const server = await startServer(t, {
  API_KEYS: `${KEY}:unlimited`,
  WORKERS: '1',
  QUEUE_MAX: '64',
  INLINE_MAX_BYTES: '1024',
  JSONMEND_TEST_HOOKS: '1',
});
const port = Number(new URL(server.url).port);
const auth = bearer(KEY);

// A 4.9 MB input whose answer is as large: the string is kept as it is.
const BIG_INPUT = `{"a": "${'x'.repeat(4_900_000)}"`;
const BIG_BODY = JSON.stringify({ raw_output: BIG_INPUT });
const BIG_REQUEST = postHead('/v1/repair', Buffer.byteLength(BIG_BODY), auth) + BIG_BODY;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
const ABORTED = 'jsonmend_requests_total{route="repair",outcome="aborted"}';
const OK = 'jsonmend_requests_total{route="repair",outcome="ok"}';

/** Nothing left in flight (the counter settles once the server has seen every close). */
async function assertSettled(t: Assert, label: string): Promise<void> {
  await msUntil(10_000, async () => (await healthStatus(server.url)).body.inflightRequests === 0);
  t.equal((await healthStatus(server.url)).body.inflightRequests, 0, `${label}: no request left in flight`);
  await assertHealthy(t, server.url, label);
  t.same(unexpectedStderr(server.stderr()), [], `${label}: nothing on stderr`);
  t.notMatch(server.stdout(), /"level":"error"/, `${label}: no error logged`);
}

t.test('Content-Length larger than the body: the client stalls, then closes', async (t) => {
  const before = await metric(ABORTED);
  const rssBefore = rssMb(server.child.pid!);
  const stalls = Array.from({ length: 50 }, () => rawExchange(server.url, [postHead('/v1/repair', 100_000, auth), `{"raw_output": "${'a'.repeat(1000)}`], { timeoutMs: 300 }));
  const results = await Promise.all(stalls);
  t.ok(results.every((r) => r.data.length === 0), 'no answer to a body that never completed');
  // The server sees the closes asynchronously: wait for the count, then check it is exact.
  await msUntil(10_000, async () => (await metric(ABORTED)) - before >= 50);
  t.equal((await metric(ABORTED)) - before, 50, 'each counted as aborted once');
  t.comment(`RSS ${rssBefore.toFixed(0)} -> ${rssMb(server.child.pid!).toFixed(0)} MB`);
  await assertSettled(t, 'after 50 stalled bodies');
});

t.test('disconnect while the repair runs or waits in the pool: no write after abort', async (t) => {
  const before = await metric(ABORTED);
  // Twelve 150 ms repairs for one worker: one runs, the rest queue; every client leaves at 100 ms.
  const body = JSON.stringify({ raw_output: `{"n": "__JSONMEND_TEST_SLEEP_MS=150__", "pad": "${'p'.repeat(2000)}"` });
  const gone = Array.from({ length: 12 }, () => rawExchange(server.url, [postHead('/v1/repair', Buffer.byteLength(body), auth) + body], { timeoutMs: 100 }));
  t.ok((await Promise.all(gone)).every((r) => r.data.length === 0), 'the clients left before any answer');
  await msUntil(10_000, async () => (await metric(ABORTED)) - before >= 12);
  t.equal((await metric(ABORTED)) - before, 12, 'each counted as aborted');
  // The running repair still finishes in the worker; its answer must be dropped, not written.
  const poolIdle = async (): Promise<boolean> => (await metric('jsonmend_pool_active_tasks')) === 0 && (await metric('jsonmend_pool_queue_depth')) === 0;
  t.ok(await msUntil(10_000, poolIdle) < Infinity, 'the pool is idle again');
  const next = await postJson(`${server.url}/v1/repair`, { raw_output: '[1, 2,' }, auth);
  t.same(next.body.repaired, [1, 2], 'the server carries on');
  await assertSettled(t, 'after 12 disconnects mid-repair');
});

t.test('disconnect mid-response: a client that reads 100 kB of a 4.9 MB answer and leaves', async (t) => {
  for (let i = 0; i < 4; i++) {
    const partial = await rawExchange(server.url, [BIG_REQUEST], { timeoutMs: 10_000, stopAfterBytes: 100_000 });
    t.ok(partial.data.length >= 100_000 && partial.data.toString('latin1', 0, 15) === 'HTTP/1.1 200 OK', `answer ${i} started, then the client left`);
  }
  await assertSettled(t, 'after 4 disconnects mid-response');
});

t.test('a client that pipelines requests for large answers and never reads: memory stays bounded', async (t) => {
  // A fresh server, so its RSS is not already inflated by the tests above.
  const fresh = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '1' });
  const freshMetric = async (series: string): Promise<number> => {
    const text = await (await fetch(`${fresh.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  await postJson(`${fresh.url}/v1/repair`, { raw_output: BIG_INPUT }, auth); // one large repair first, so warm-up is not counted
  const rssBefore = rssMb(fresh.child.pid!);
  const okBefore = await freshMetric(OK);
  let peak = rssBefore;
  const socket = connect(Number(new URL(fresh.url).port), '127.0.0.1');
  socket.pause(); // never reads
  let writeError: string | null = null;
  socket.on('error', (error: NodeJS.ErrnoException) => (writeError = error.code ?? error.message));
  await new Promise((resolve) => socket.once('connect', resolve));
  let sent = 0;
  for (; sent < 15 && writeError === null; sent++) {
    socket.write(BIG_REQUEST);
    // Wait for this request to be answered (uWS closes a connection whose next request arrives
    // before the previous answer has even begun), or for the connection to be closed.
    const until = performance.now() + 800;
    while ((await freshMetric(OK)) - okBefore <= sent && writeError === null && performance.now() < until) await sleep(25);
    await sleep(50);
    peak = Math.max(peak, rssMb(fresh.child.pid!));
  }
  socket.destroy();
  const answered = (await freshMetric(OK)) - okBefore;
  t.comment(`sent ${sent} requests, ${answered} answered, write error ${writeError}; RSS ${rssBefore.toFixed(0)} MB, peak ${peak.toFixed(0)} MB`);
  // Before answers were paced, every request was answered into an ever-growing buffer (40 requests
  // took a server from 98 to 402 MB). Now uWS closes the connection when a request arrives while an
  // answer is still being written, so at most a couple are answered.
  t.ok(writeError !== null, `the server closed the connection (${writeError})`);
  t.ok(answered <= 2, `${answered} answered on the stalled connection`);
  t.ok(peak - rssBefore < 100, `RSS grew ${(peak - rssBefore).toFixed(0)} MB`);
  await assertHealthy(t, fresh.url, 'after the pipelining non-reader');
  t.same(unexpectedStderr(fresh.stderr()), [], 'nothing on stderr');
});

t.test('a slow reader gets every byte of a paced 4.9 MB answer; small pipelined answers still work', async (t) => {
  const readers = Array.from({ length: 2 }, () => new Promise<Buffer>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(BIG_REQUEST));
    const chunks: Buffer[] = [];
    let total = 0;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      socket.pause(); // about 10 ms per chunk read
      setTimeout(() => socket.resume(), 10);
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, headEnd))?.[1] ?? NaN);
      if (headEnd > 0 && total >= headEnd + 4 + length) {
        socket.destroy();
        resolve(Buffer.concat(chunks).subarray(headEnd + 4, headEnd + 4 + length));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${total} bytes`)));
  }));
  for (const body of await Promise.all(readers)) {
    const answer = JSON.parse(body.toString('utf8'));
    t.equal(answer.success, true);
    t.equal(answer.repaired.a.length, 4_900_000, 'the whole value arrived');
  }
  const small = JSON.stringify({ raw_output: '{"b": 2' });
  const three = await rawExchange(server.url, [Array.from({ length: 3 }, () => postHead('/v1/repair', small.length, auth) + small).join('')], { timeoutMs: 2000 });
  t.equal(three.data.toString().match(/HTTP\/1\.1 200 OK/g)?.length, 3, 'three pipelined small requests, three answers');
  await assertSettled(t, 'after the slow readers');
});

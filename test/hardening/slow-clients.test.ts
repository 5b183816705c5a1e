// Slow clients: slowloris headers and bodies, idle connections and clients that never read their
// answer are all closed by the server itself (uWS's ~10 s timeout, 4 s granularity: 12 s measured),
// while /health and repairs keep answering at once. The one slow file: ~20 s.
import { connect } from 'node:net';
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { msUntil } from '../helpers/until.js';
import { KEY, assertHealthy, healthStatus, postHead, rssMb, sleep, unexpectedStderr } from './helpers.js';

// Closed within this long, or the server does not enforce a timeout (uWS: 10 s, checked every 4 s).
const CLOSED_WITHIN_MS = 16_000;
// An unread answer is looked at again after this long: by then the server has closed it.
const RESUME_AFTER_MS = 15_000;

// The four 4.9 MB repairs queue on one worker; on a loaded machine the last may take longer than the
// default task timeout, which is not what this file tests.
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '1', TASK_TIMEOUT_MS: '60000' });
const port = Number(new URL(server.url).port);

interface Held { closedByServer: boolean; elapsedMs: number; received: number }

/** Sends `head`, then `piece` every `everyMs` (never finishing); times from the connection. */
function hold(head: string, piece: string, everyMs: number): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const started = performance.now();
    let received = 0;
    let drip: NodeJS.Timeout | undefined;
    const done = (closedByServer: boolean): void => {
      clearInterval(drip);
      clearTimeout(cap);
      socket.destroy();
      resolve({ closedByServer, elapsedMs: performance.now() - started, received });
    };
    const cap = setTimeout(() => done(false), CLOSED_WITHIN_MS + 2000);
    socket.on('error', () => {});
    socket.on('data', (chunk) => (received += chunk.length));
    socket.on('close', () => done(true));
    socket.on('connect', () => {
      if (head !== '') socket.write(head);
      if (piece !== '') drip = setInterval(() => socket.writable && socket.write(piece), everyMs);
    });
  });
}

/**
 * Sends a whole `request` and stops reading at the first bytes of its answer; times from then, as
 * the server's timeout runs from when its writes stop progressing, not from when the request was
 * sent (a large repair may take seconds before its answer starts). A paused socket cannot see the
 * server's FIN, so it reads again after `RESUME_AFTER_MS` and finds either the end of a cut-off
 * answer (the server gave up on it) or the rest of the whole answer.
 */
function holdUnread(request: string): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answerStarted = 0;
    let received = 0;
    let cap: NodeJS.Timeout | undefined;
    const done = (closedByServer: boolean): void => {
      clearTimeout(cap);
      socket.destroy();
      resolve({ closedByServer, elapsedMs: performance.now() - answerStarted, received });
    };
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      received += chunk.length;
      if (answerStarted !== 0) return;
      answerStarted = performance.now();
      socket.pause();
      setTimeout(() => socket.resume(), RESUME_AFTER_MS);
      cap = setTimeout(() => done(false), CLOSED_WITHIN_MS + 2000);
    });
    socket.on('close', () => done(answerStarted !== 0));
    socket.on('connect', () => socket.write(request));
  });
}

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

t.test('slowloris headers and bodies, idle and non-reading connections are closed by the server', async (t) => {
  const abortedBefore = await metric('jsonmend_requests_total{route="repair",outcome="aborted"}');
  const rssBefore = rssMb(server.child.pid!);
  const bigBody = JSON.stringify({ raw_output: `{"a": "${'x'.repeat(4_900_000)}"` });
  const groups = {
    // One header line every 500 ms, never the blank line that ends the head.
    headers: Array.from({ length: 30 }, () => hold('POST /v1/repair HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaaaaaaaaaaaaaa\r\n', 500)),
    // A 100 kB body promised, 10 bytes sent every 500 ms (20 B/s).
    bodies: Array.from({ length: 30 }, () => hold(`${postHead('/v1/repair', 100_000, bearer(KEY))}{"raw_output": "`, 'aaaaaaaaaa', 500)),
    idle: Array.from({ length: 20 }, () => hold('', '', 0)),
    // A whole request for a 4.9 MB answer, which is never read.
    nonReading: Array.from({ length: 4 }, () => holdUnread(postHead('/v1/repair', Buffer.byteLength(bigBody), bearer(KEY)) + bigBody)),
  };
  // Meanwhile the server answers others at once.
  let peakRss = 0;
  for (let second = 0; second < 4; second++) {
    await sleep(1000);
    const started = performance.now();
    t.equal((await healthStatus(server.url)).status, 200, `/health answers while 84 connections are held (${second + 1} s)`);
    const repaired = await postJson(`${server.url}/v1/repair`, { raw_output: '{"a": [1, 2,' }, bearer(KEY));
    t.same(repaired.body.repaired, { a: [1, 2] });
    // Served alongside the held connections, not after them: a server stuck behind them would answer
    // only once its idle timeout (~10-12 s measured) closed them: the bound is half of CLOSED_WITHIN_MS.
    t.ok(performance.now() - started < CLOSED_WITHIN_MS / 2, `health + repair in ${(performance.now() - started).toFixed(0)} ms`);
    peakRss = Math.max(peakRss, rssMb(server.child.pid!));
  }
  for (const [group, held] of Object.entries(groups)) {
    const results = await Promise.all(held);
    const slowest = Math.max(...results.map((r) => r.elapsedMs));
    t.ok(results.every((r) => r.closedByServer), `${group}: all ${results.length} closed by the server`);
    t.ok(slowest < CLOSED_WITHIN_MS, `${group}: the last closed after ${(slowest / 1000).toFixed(1)} s`);
    if (group === 'nonReading') {
      const received = results.map((r) => r.received);
      t.ok(received.every((bytes) => bytes < 4_900_000), `the server gave up on the unread answers: got ${received.join(', ')} bytes of ~4.9 MB each`);
    }
  }
  t.comment(`server RSS: ${rssBefore.toFixed(0)} MB before, ${peakRss.toFixed(0)} MB at most while held, ${rssMb(server.child.pid!).toFixed(0)} MB after`);
  // The server sees the last closes asynchronously: wait for the count to settle, then check it.
  await msUntil(10_000, async () => (await healthStatus(server.url)).body.inflightRequests === 0);
  const health = await healthStatus(server.url);
  t.equal(health.body.inflightRequests, 0, 'no request left in flight (nothing leaked)');
  const aborted = (await metric('jsonmend_requests_total{route="repair",outcome="aborted"}')) - abortedBefore;
  t.equal(aborted, 30, 'each half-sent body was counted as aborted once');
  await assertHealthy(t, server.url, 'after the slow clients');
  t.same(unexpectedStderr(server.stderr()), [], 'nothing on stderr');
  t.notMatch(server.stdout(), /"level":"error"/, 'no error logged');
});

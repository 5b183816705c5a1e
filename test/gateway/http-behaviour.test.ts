// The gateway as HTTP: a call counts once against the account whatever it streams (and not when the
// upstream failed), a caller's own upstream key only when the operator allows it, and backpressure —
// a client that does not read pauses the upstream read instead of the server buffering the stream.
import t from 'tap';
import { usageOf } from '../accounts/http-helpers.js';
import { SseParser } from '../../server/gateway/sse-parser.js';
import { completion, ScriptedUpstream, sseText, streamChunks, writeJson, writeSse } from '../../support/scripted-upstream.js';
import { startServer } from '../helpers/start-server.js';

const KEY = 'sk_live_gatewayhttpkey0123456789abcdef';
const upstream = await ScriptedUpstream.start();
t.teardown(() => upstream.close());
upstream.script('text', (_req, res) => writeJson(res, 200, completion([{ content: 'hi' }], 'text')));
upstream.script('stream', (_req, res) => writeSse(res, [sseText(streamChunks([{ content: 'one two three' }], (s) => s.split(' '), 'stream'))]));
upstream.script('down', (_req, res) => writeJson(res, 503, { error: { message: 'overloaded', type: 'server_error', param: null, code: null } }));

function call(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, ...headers }, body: JSON.stringify(body) });
}

t.test('usage: one count per call, streamed or not; an upstream error counts nothing', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url });
  const before = (await usageOf(server.url, KEY)).body.count;
  await (await call(server.url, { model: 'text', messages: [] })).text();
  const streamed = await call(server.url, { model: 'stream', stream: true, messages: [] });
  const parser = new SseParser();
  let events = 0;
  for await (const chunk of streamed.body!) events += parser.push(chunk).length;
  t.ok(events > 3, 'several chunks streamed');
  t.equal((await call(server.url, { model: 'down', messages: [] })).status, 503);
  t.equal((await usageOf(server.url, KEY)).body.count, before + 2);
});

t.test('X-Upstream-Authorization goes upstream only with UPSTREAM_KEY_FROM_CALLER=1', async (t) => {
  const closed = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'sk-operator' });
  await (await call(closed.url, { model: 'text', messages: [] }, { 'x-upstream-authorization': 'Bearer sk-caller' })).text();
  t.equal(upstream.requests.at(-1)!.headers['authorization'], 'Bearer sk-operator');
  const open = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'sk-operator', UPSTREAM_KEY_FROM_CALLER: '1' });
  await (await call(open.url, { model: 'text', messages: [] }, { 'x-upstream-authorization': 'Bearer sk-caller' })).text();
  t.equal(upstream.requests.at(-1)!.headers['authorization'], 'Bearer sk-caller');
  await (await call(open.url, { model: 'text', messages: [] })).text();
  t.equal(upstream.requests.at(-1)!.headers['authorization'], 'Bearer sk-operator', 'without the header, the operator key');
});

t.test('a client that does not read pauses the upstream; once it reads, everything arrives', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url });
  const piece = 'x'.repeat(16 * 1024);
  const event = `data: ${streamChunks([{ content: piece }], (s) => [s], 'flood')[1]}\n\n`;
  const TOTAL = 4096; // 4096 events of 16 KiB: 64 MiB if nothing pushed back
  let written = 0;
  let blocked = false;
  upstream.script('flood', async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < TOTAL && !res.destroyed; i++) {
      written++;
      if (!res.write(event)) {
        blocked = true;
        await new Promise<void>((resolve) => {
          const go = (): void => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
        blocked = false;
      }
    }
    res.end('data: [DONE]\n\n');
    void req;
  });
  const response = await call(server.url, { model: 'flood', stream: true, messages: [] });
  const reader = response.body!.getReader();
  // Not reading: wait until the upstream has been held for a while with its count unchanged.
  let last = -1;
  let steady = 0;
  while (steady < 10 && written < TOTAL) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    steady = blocked && written === last ? steady + 1 : 0;
    last = written;
  }
  t.ok(written < TOTAL / 2, `the upstream was held after ${written} of ${TOTAL} events (${(written * event.length / 1048576).toFixed(1)} MiB)`);
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
  }
  t.equal(written, TOTAL);
  t.ok(bytes > TOTAL * piece.length, 'every event reached the client');
});

t.test('a client that goes away before a whole answer aborts the upstream request too', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url });
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => { arrived = resolve; });
  let aborted: Promise<void> | null = null;
  upstream.script('thinking', (req) => {
    aborted = req.aborted; // never answers: a model still thinking
    arrived();
  });
  const controller = new AbortController();
  const response = fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'thinking', messages: [] }), signal: controller.signal,
  }).catch(() => null);
  await reached;
  controller.abort();
  await response;
  await aborted;
  t.pass('the upstream saw the request closed');
});

// PAYLOAD_TOO_LARGE: from Content-Length before reading, by counting when there is none (chunked),
// and on the input text itself (MAX_PAYLOAD_BYTES is about the decoded input; the body may be six
// times larger for JSON escaping, plus a schema: test/server/payload-escaping.test.ts).
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { rawRequest } from '../helpers/raw-http.js';

const KEY = 'payload-test-key-1';
const auth = bearer(KEY);

function head(path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: 'localhost', 'content-type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

t.test('default limits: a 40 MB and a 500 MB Content-Length are refused before the body is sent', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:pro` });
  for (const length of [40_000_000, 500_000_000]) {
    const answer = await rawRequest(server.url, head('/v1/repair', { 'content-length': String(length), authorization: `Bearer ${KEY}` }));
    t.equal(answer.status, 200);
    t.ok(answer.headers['x-request-id']);
    t.equal(answer.bytesSent, 0, 'not a byte of the body was sent');
    t.ok(answer.elapsedMs < 1000, `answered in ${answer.elapsedMs.toFixed(1)} ms`);
    const body = JSON.parse(answer.body);
    t.equal(body.success, false);
    t.match(body.metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', severity: 'critical', recoverable: false });
  }
  // The demo is limited the same way.
  const demo = await rawRequest(server.url, head('/v1/demo/repair', { 'content-length': '40000000' }));
  t.equal(JSON.parse(demo.body).metadata.errors[0].code, 'PAYLOAD_TOO_LARGE');
  t.equal(JSON.parse(demo.body).demo, true);
  // An input just under 5 MiB in a body of the same size is accepted.
  const big = '[' + '1,'.repeat(2_600_000) + '1]';
  const accepted = await postJson(`${server.url}/v1/repair`, { raw_output: big }, auth);
  t.equal(accepted.body.success, true);
  t.equal(accepted.body.repaired.length, 2_600_001);
});

t.test('small limits: counting, chunked uploads and the input size', async (t) => {
  const server = await startServer(t, { API_KEYS: `${KEY}:pro`, MAX_PAYLOAD_BYTES: '1000' });
  const bodyLimit = 6 * 1000 + 1024 * 1024;

  t.test('a chunked upload is stopped at the limit, while it is still being sent', async (t) => {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    let written = 0;
    const answer = await rawRequest(
      server.url,
      head('/v1/repair', { 'transfer-encoding': 'chunked', authorization: `Bearer ${KEY}` }),
      (socket) => {
        if (written > 50 * 1024 * 1024) return 0; // 50 MB: the server must have answered long before
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
        written += chunk.length;
        return chunk.length;
      },
    );
    t.equal(answer.status, 200);
    t.ok(answer.headers['x-request-id']);
    t.match(JSON.parse(answer.body).metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE' });
    // The server answers once it has counted past the limit; what is still in flight then (socket
    // buffers on both sides) is discarded. 50 MB would be sent if the answer waited for the end.
    t.ok(answer.bytesSent < 16 * 1024 * 1024, `answered after ${answer.bytesSent} bytes`);
  });

  t.test('a chunked body within the limit is read whole', async (t) => {
    const parts = ['{"raw_', 'output":', '"{\\"a\\":1"', '}'];
    const stream = new ReadableStream({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${server.url}/v1/repair`, { method: 'POST', headers: auth, body: stream, duplex: 'half' } as RequestInit);
    const body = await response.json();
    t.equal(body.success, true);
    t.same(body.repaired, { a: 1 });
  });

  t.test('a compact chunked body over the limit is refused in the compact shape', async (t) => {
    let first = true;
    const answer = await rawRequest(
      server.url,
      head('/v1/repair', { 'transfer-encoding': 'chunked', authorization: `Bearer ${KEY}` }),
      (socket) => {
        const text = first ? '{"content":"' : 'x'.repeat(8192);
        first = false;
        socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
        return text.length;
      },
    );
    t.match(JSON.parse(answer.body), { valid: false, confidence: 'n/a', errors: [{ code: 'PAYLOAD_TOO_LARGE' }] });
  });

  t.test('Content-Length just over the body limit', async (t) => {
    const answer = await rawRequest(server.url, head('/v1/repair', { 'content-length': String(bodyLimit + 1), authorization: `Bearer ${KEY}` }));
    t.equal(JSON.parse(answer.body).metadata.errors[0].code, 'PAYLOAD_TOO_LARGE');
  });

  t.test('the input is limited in UTF-8 bytes, not characters', async (t) => {
    const fits = `"${'é'.repeat(499)}"`; // 2 + 998 = 1000 bytes
    const over = `"${'é'.repeat(500)}"`; // 1002 bytes, 502 characters
    const ok = await postJson(`${server.url}/v1/repair`, { raw_output: fits }, auth);
    t.equal(ok.body.success, true);
    const refused = await postJson(`${server.url}/v1/repair`, { raw_output: over }, auth);
    t.match(refused.body.metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', severity: 'critical', recoverable: false });
    const compact = await postJson(`${server.url}/v1/repair`, { content: over }, auth);
    t.match(compact.body, { valid: false, errors: [{ code: 'PAYLOAD_TOO_LARGE' }] });
  });
});

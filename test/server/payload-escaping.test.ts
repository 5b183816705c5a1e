// MAX_PAYLOAD_BYTES limits the decoded input: the UTF-8 bytes of `raw_output` /
// `content` / a streaming `chunk`, not the request body, which may be up to six times larger once
// JSON-escaped (Python's json.dumps escapes every non-ASCII character as \uXXXX) plus a schema.
// An oversized Content-Length is still refused before the body is read.
import t from 'tap';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { rawRequest } from '../helpers/raw-http.js';

const KEY = 'escaping-test-key-0001';
const auth = bearer(KEY);
const MAX = 5_242_880;
// Big inputs are repaired in the pool; leave a loaded test machine time for them.
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, TASK_TIMEOUT_MS: '60000' });

/** What Python's json.dumps sends by default: every non-ASCII character as \uXXXX. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** CJK text of `bytes` UTF-8 bytes (3 per character). */
const cjk = (bytes: number): string => '漢字かな交じり文'.repeat(Math.ceil(bytes / 24)).slice(0, Math.floor(bytes / 3));

t.test('a 5.07 MB reply that is 6.27 MB once escaped is repaired', async (t) => {
  const record = '  {"id": 12345, "name": "Ada L", "tag": "x"},\n';
  const reply = `Here you go:\n[\n${record.repeat(Math.floor(5_070_000 / record.length))}`; // the ] is missing
  const body = JSON.stringify({ raw_output: reply });
  t.ok(Buffer.byteLength(reply) > 5_000_000 && Buffer.byteLength(reply) < MAX, `input ${Buffer.byteLength(reply)} bytes`);
  t.ok(body.length > 6_270_000, `body ${body.length} bytes`);
  const answer = await postJson(`${server.url}/v1/repair`, body, auth);
  t.equal(answer.body.success, true, answer.body.metadata?.errors?.[0]?.message ?? 'repaired');
  t.equal(answer.body.repaired?.length, Math.floor(5_070_000 / record.length));
});

t.test('3.6 MB of CJK sent as \\u escapes (7.2 MB of body) is accepted, in both contracts', async (t) => {
  const text = cjk(3_600_000);
  const envelope = asciiJson({ raw_output: JSON.stringify({ text }) });
  t.ok(envelope.length > 7_000_000, `body ${envelope.length} bytes`);
  const answer = await postJson(`${server.url}/v1/repair`, envelope, auth);
  t.equal(answer.body.success, true, answer.body.metadata?.errors?.[0]?.message ?? 'accepted');
  t.equal(answer.body.repaired?.text, text);
  const compact = await postJson(`${server.url}/v1/repair`, asciiJson({ content: JSON.stringify({ text }) }), auth);
  t.equal(compact.body.valid, true, compact.body.errors?.[0]?.message ?? 'accepted');
});

t.test('raw_output of 5 MiB + 1 byte is refused PAYLOAD_TOO_LARGE (counted decoded)', async (t) => {
  const exactly = `"${'a'.repeat(MAX - 2)}"`;
  const over = `"${'a'.repeat(MAX - 1)}"`;
  const fits = await postJson(`${server.url}/v1/repair`, { raw_output: exactly }, auth);
  t.equal(fits.body.success, true, 'exactly 5 MiB is accepted');
  const refused = await postJson(`${server.url}/v1/repair`, { raw_output: over }, auth);
  t.match(refused.body.metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', message: /5242881 bytes of UTF-8/ });
  // Escaping does not count: 5 MiB + 1 of CJK is refused however it is sent.
  const escapedOver = await postJson(`${server.url}/v1/repair`, asciiJson({ content: `"${cjk(MAX - 1)}a"` }), auth);
  t.match(escapedOver.body, { valid: false, errors: [{ code: 'PAYLOAD_TOO_LARGE' }] });
});

t.test('a streaming chunk is limited decoded too', async (t) => {
  const start = await postJson(`${server.url}/v1/repair/stream/start`, {}, auth);
  const session = start.body.session_id;
  t.ok(session, 'session started');
  const text = cjk(3_600_000);
  const push = await postJson(`${server.url}/v1/repair/stream/push`, asciiJson({ session_id: session, chunk: `{"text": "${text}` }), auth);
  t.ok(push.body.state, push.body.metadata?.errors?.[0]?.message ?? 'a 7.2 MB escaped push of 3.6 MB is taken');
  t.equal(push.body.state?.buffered, `{"text": "${text}`, 'the whole chunk is in the buffer');
  const start2 = await postJson(`${server.url}/v1/repair/stream/start`, {}, auth);
  const over = await postJson(`${server.url}/v1/repair/stream/push`, asciiJson({ session_id: start2.body.session_id, chunk: cjk(MAX + 3) }), auth);
  t.match(over.body.metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', message: /bytes of UTF-8/ });
});

t.test('a Content-Length over the body limit is refused before any of the body is read', async (t) => {
  const limit = 6 * MAX + 1024 * 1024;
  for (const length of [limit + 1, 50_000_000]) {
    const head = `POST /v1/repair HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\nauthorization: Bearer ${KEY}\r\ncontent-length: ${length}\r\n\r\n`;
    const answer = await rawRequest(server.url, head);
    t.equal(answer.bytesSent, 0, 'not a byte of the body was sent');
    t.match(JSON.parse(answer.body).metadata.errors[0], { code: 'PAYLOAD_TOO_LARGE', message: new RegExp(`${length} bytes; the limit is ${limit}`) });
  }
});

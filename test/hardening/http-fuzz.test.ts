// HTTP fuzzing against the real server: random bytes, broken UTF-8, wrong content
// types, huge and deeply nested bodies, truncated and malformed requests over raw sockets. Every
// answer must be JSON in the contract's shape with a registered code; /health must answer after
// every batch; the process must not log an error or die. `npm run fuzz -- --http` runs more.
import t from 'tap';
import { createRandom } from '../../support/random.js';
import { startServer } from '../helpers/start-server.js';
import { AUTH, KEY, type Assert, assertHealthy, assertJsonAnswer, errorCodeOf, postHead, rawExchange, unexpectedStderr } from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 20240811);
const random = createRandom(SEED);
const server = await startServer(t, {
  API_KEYS: `${KEY}:unlimited`,
  DEMO_LIMIT_PER_HOUR: '100000',
  // Bodies over 2 KB go to the single worker, so both execution paths are fuzzed.
  INLINE_MAX_BYTES: '2048',
  WORKERS: '1',
});
const REPAIR = `${server.url}/v1/repair`;
const DEMO = `${server.url}/v1/demo/repair`;

interface Sent { url: string; body: Buffer | string; contentType?: string | null; chunked?: boolean }

async function send(t: Assert, request: Sent, label: string): Promise<any> {
  const headers: Record<string, string> = { ...AUTH };
  if (request.contentType !== null) headers['content-type'] = request.contentType ?? 'application/json';
  const bytes = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  // A stream body makes fetch send Transfer-Encoding: chunked (no Content-Length).
  const body = request.chunked === true ? new Blob([bytes]).stream() : bytes;
  const response = await fetch(request.url, { method: 'POST', headers, body, duplex: 'half', signal: AbortSignal.timeout(20_000) } as RequestInit);
  return assertJsonAnswer(t, response.headers, await response.text(), label);
}

function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = random.int(256);
  return bytes;
}

t.test('random bytes as the body, to both endpoints', async (t) => {
  for (let i = 0; i < 24; i++) {
    const length = random.chance(0.5) ? random.int(64) : random.int(20_000);
    const body = await send(t, { url: i % 2 === 0 ? REPAIR : DEMO, body: randomBytes(length) }, `random body ${i} (${length} bytes)`);
    t.ok(body === null || body.success === false, 'random bytes are not a request');
  }
  await assertHealthy(t, server.url, 'after this batch');
});

// Invalid UTF-8 sequences: overlong, lone continuation, truncated multi-byte, encoded surrogate, 0xFF.
const BROKEN_UTF8 = [[0xc3, 0x28], [0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xf8, 0x88, 0x80, 0x80, 0x80]];

t.test('broken UTF-8 inside the text field and inside the JSON syntax of the body', async (t) => {
  for (let i = 0; i < 16; i++) {
    const field = i % 2 === 0 ? 'raw_output' : 'content';
    const bad = Buffer.from(BROKEN_UTF8[i % BROKEN_UTF8.length]!);
    const padding = 'x'.repeat(i < 8 ? 10 : 3000); // inline and pool
    const inside = Buffer.concat([Buffer.from(`{"${field}": "{\\"a\\": \\"${padding}`), bad, Buffer.from('\\", b: [1,2,"}')]);
    const body = await send(t, { url: REPAIR, body: inside }, `broken UTF-8 in ${field} ${i}`);
    t.ok(body.success === true || body.valid === true, `bytes become U+FFFD and the text is repaired (${i})`);
    const outside = Buffer.concat([Buffer.from(`{"${field}"`), bad, Buffer.from(': "1"}')]);
    const refused = await send(t, { url: REPAIR, body: outside }, `broken UTF-8 in the syntax ${i}`);
    t.ok(refused.success === false || refused.valid === false, 'a body that is not JSON is refused');
  }
  await assertHealthy(t, server.url, 'after this batch');
});

t.test('wrong or missing content types do not change the answer', async (t) => {
  const types = [null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/json; charset=utf-16', 'image/png', '*/*'];
  for (const contentType of types) {
    const body = await send(t, { url: REPAIR, body: '{"raw_output": "{a: 1,"}', contentType }, `content type ${contentType}`);
    t.same(body?.repaired, { a: 1 }, `repaired with content type ${contentType}`);
  }
  const form = await send(t, { url: REPAIR, body: 'raw_output=%7Ba%3A1%7D', contentType: 'application/x-www-form-urlencoded' }, 'a form body');
  t.equal(form.success, false, 'a form-encoded body is not JSON');
  await assertHealthy(t, server.url, 'after this batch');
});

t.test('huge and deeply nested bodies', async (t) => {
  // Input text that nests past the engine's 1000 levels, at the size limit, through the pool.
  const deep = await send(t, { url: REPAIR, body: JSON.stringify({ raw_output: '['.repeat(5_000_000) }) }, '5 MB of "["');
  t.equal(deep.metadata.errors[0].code, 'UNRECOVERABLE_SYNTAX_ERROR');
  const objects = await send(t, { url: REPAIR, body: JSON.stringify({ content: '{"a":'.repeat(700_000) }) }, '3.5 MB of {"a":');
  t.equal(errorCodeOf(objects), 'INVALID_JSON_SYNTAX', 'compact contract, nested past 1000 levels');
  // A 5 MB document that repairs: the answer is as large as the input.
  const big = `[${Array.from({ length: 120_000 }, (_, i) => `{id: ${i}, 'name': "row ${i}",}`).join(',')}`;
  const repaired = await send(t, { url: REPAIR, body: JSON.stringify({ raw_output: big }) }, `${(big.length / 1e6).toFixed(1)} MB repairable`);
  t.equal(repaired.repaired.length, 120_000);
  // The body itself nested a million deep: parsed, then refused as not an object.
  const nestedBody = await send(t, { url: REPAIR, body: '['.repeat(1_000_000) + ']'.repeat(1_000_000) }, 'a body nested 1e6 deep');
  t.equal(nestedBody.metadata.errors[0].code, 'INVALID_REQUEST');
  // A schema nested 20,000 deep is refused before it is compiled.
  const schema = '{"items":'.repeat(20_000) + '{}' + '}'.repeat(20_000);
  const deepSchema = await send(t, { url: REPAIR, body: `{"raw_output": "[1]", "schema": ${schema}}` }, 'a schema nested 20,000 deep');
  t.equal(deepSchema.metadata.errors[0].code, 'INVALID_REQUEST');
  // 100,000 unknown fields: one INVALID_REQUEST, not 100,000 messages.
  const fields = `{"raw_output": "1", ${Array.from({ length: 100_000 }, (_, i) => `"f${i}": ${i}`).join(',')}}`;
  const many = await send(t, { url: REPAIR, body: fields }, '100,000 unknown fields');
  t.equal(many.metadata.errors[0].code, 'INVALID_REQUEST');
  t.ok(many.metadata.errors.length <= 25, `${many.metadata.errors.length} errors listed`);
  // Over the body limit, without a Content-Length (chunked): counted while reading, then refused.
  const chunked = await send(t, { url: REPAIR, body: Buffer.alloc(33_000_000, 0x20), chunked: true }, 'a chunked body over the limit');
  t.equal(chunked.metadata.errors[0].code, 'PAYLOAD_TOO_LARGE');
  // Over the limit by Content-Length: answered before any of the body is sent.
  const claimed = await rawExchange(server.url, [postHead('/v1/repair', 50_000_000)], { timeoutMs: 5000, stopAfterBytes: 200 });
  t.match(claimed.data.toString(), /^HTTP\/1\.1 200 OK[\s\S]*PAYLOAD_TOO_LARGE/, 'refused from the Content-Length alone');
  await assertHealthy(t, server.url, 'after this batch');
});

const HEAD = 'POST /v1/repair HTTP/1.1\r\nHost: x\r\n';
const MALFORMED: [string, (string | Buffer)[]][] = [
  ['garbage request line', ['GARBAGE\r\n\r\n']],
  ['binary noise', [randomBytes(4096)]],
  ['headers cut mid-line', [`${HEAD}Authorization: Bearer ${KEY}\r\nContent-Le`]],
  ['Content-Length 100, 10 bytes sent', [`${HEAD}Content-Length: 100\r\n\r\n{"raw_outp`]],
  ['non-numeric Content-Length', [`${HEAD}Content-Length: abc\r\n\r\n{}`]],
  ['negative Content-Length', [`${HEAD}Content-Length: -5\r\n\r\n{}`]],
  ['20-digit Content-Length', [`${HEAD}Content-Length: 99999999999999999999\r\n\r\n{}`]],
  ['Content-Length and chunked together', [`${HEAD}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`]],
  ['bad chunk size', [`${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`]],
  ['chunked, cut mid-chunk', [`${HEAD}Transfer-Encoding: chunked\r\n\r\n100\r\n{"raw_output": "`]],
  ['1,000 headers', [`${HEAD}${Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${i}`).join('\r\n')}\r\nContent-Length: 2\r\n\r\n{}`]],
  ['a 100 KB header', [`${HEAD}X-Big: ${'a'.repeat(100_000)}\r\nContent-Length: 2\r\n\r\n{}`]],
  ['a NUL byte in the path', ['GET /hea\u0000lth HTTP/1.1\r\nHost: x\r\n\r\n']],
  ['no Host, HTTP/1.0', ['GET /health HTTP/1.0\r\n\r\n']],
  ['unknown method', ['BREW /v1/repair HTTP/1.1\r\nHost: x\r\n\r\n']],
  ['absolute URI', ['GET http://evil.example/health HTTP/1.1\r\nHost: x\r\n\r\n']],
  ['a 64 KB path', [`GET /${'p'.repeat(65_536)} HTTP/1.1\r\nHost: x\r\n\r\n`]],
  ['HTTP/2 preface', ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n']],
];

t.test('truncated and malformed requests over raw sockets: answered or closed, never hung', async (t) => {
  for (const [name, pieces] of MALFORMED) {
    const exchange = await rawExchange(server.url, pieces, { timeoutMs: 4000, endAfterWrite: true });
    const text = exchange.data.toString('latin1');
    t.ok(exchange.closedByServer || text.startsWith('HTTP/1.1'), `${name}: ${exchange.closedByServer ? 'closed' : 'answered'} after ${exchange.elapsedMs.toFixed(0)} ms`);
    // Answers of our own handlers (they carry X-Request-ID) must be proper JSON answers.
    const headEnd = text.indexOf('\r\n\r\n');
    if (headEnd > 0 && /\r\nX-Request-ID:/i.test(text.slice(0, headEnd))) {
      const headers = Object.fromEntries(text.slice(0, headEnd).split('\r\n').slice(1).map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }));
      const length = Number(headers['content-length']);
      assertJsonAnswer(t, headers, text.slice(headEnd + 4, headEnd + 4 + length), name);
    }
  }
  await assertHealthy(t, server.url, 'after this batch');
});

t.test('the server logged no error and is still the same process', async (t) => {
  t.equal(server.child.exitCode, null, 'still running');
  t.same(unexpectedStderr(server.stderr()), [], 'nothing on stderr');
  t.notMatch(server.stdout(), /"level":"error"/, 'no error logged');
});

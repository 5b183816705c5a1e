// POST /v1/chat/completions with `stream: true`: chunks with nothing to heal pass through as they
// came, healed parts arrive as the healer's deltas (several tool calls, n = 2), the report comes in
// the last chunk before [DONE], SSE framing of any shape is read, the official `openai` client's
// stream helpers assemble the healed answer, and a client that goes away aborts the upstream.
import t from 'tap';
import OpenAI from 'openai';
import { healJson } from '../../engine/index.js';
import { SseParser } from '../../server/gateway/sse-parser.js';
import { createRandom } from '../../support/random.js';
import { completion, ScriptedUpstream, sseText, streamChunks, writeJson, writeSse, type ChoiceSpec } from '../../support/scripted-upstream.js';
import { startServer } from '../helpers/start-server.js';

const KEY = 'sk_live_gatewaystreamkey0123456789abcd';
const upstream = await ScriptedUpstream.start();
t.teardown(() => upstream.close());
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, UPSTREAM_URL: upstream.url });
const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });

const WEATHER_PARAMS = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };
const TOOLS = [{ type: 'function' as const, function: { name: 'get_weather', parameters: WEATHER_PARAMS } }];

/** Cuts a text into pieces of 1 to 4 characters, the same on every run. */
function smallPieces(text: string): string[] {
  const random = createRandom(text.length);
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + random.int(4);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Streams `body` through the gateway and returns every SSE event's data, in order. */
async function streamEvents(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; data: string[] }> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const parser = new SseParser();
  const data: string[] = [];
  for await (const chunk of response.body!) for (const e of parser.push(chunk)) data.push(e.data);
  return { status: response.status, headers: response.headers, data };
}

/** The deltas of one healed part joined, with every prefix a client saw, from a stream's events. */
function joined(data: string[], pick: (chunk: any) => string | undefined): { text: string; prefixes: string[] } {
  let text = '';
  const prefixes: string[] = [];
  for (const d of data) {
    if (d === '[DONE]') continue;
    const piece = pick(JSON.parse(d));
    if (piece === undefined) continue;
    text += piece;
    prefixes.push(text);
  }
  return { text, prefixes };
}

const toolArgs = (choice: number, index: number) => (chunk: any): string | undefined =>
  chunk.choices.find((c: any) => c.index === choice)?.delta?.tool_calls?.filter((c: any) => c.index === index).map((c: any) => c.function?.arguments ?? '').join('');

t.test('a text answer passes through chunk for chunk; the report chunk then [DONE]', async (t) => {
  const chunks = streamChunks([{ content: 'Hello there, {not json} "quoted" naïve 😀' }], smallPieces, 'text');
  upstream.script('text', (_req, res) => writeSse(res, [sseText(chunks)]));
  const { status, headers, data } = await streamEvents({ model: 'text', messages: [] });
  t.equal(status, 200);
  t.match(headers.get('content-type'), /^text\/event-stream/);
  t.same(data.slice(0, chunks.length), chunks, 'every upstream chunk, its data untouched');
  t.equal(data.at(-1), '[DONE]');
  const report = JSON.parse(data.at(-2)!);
  t.same(report.choices, []);
  t.match(report, { id: 'chatcmpl-scripted1', object: 'chat.completion.chunk', jsonmend: { confidence: 'high', choices: [] } });
  t.equal(data.length, chunks.length + 2);
});

t.test('several tool calls in n = 2 answers: joined deltas are the healed arguments, nothing taken back', async (t) => {
  const choices: ChoiceSpec[] = [
    { tool_calls: [
      { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris", "days": "3",}' },
      { id: 'call_b', name: 'get_weather', arguments: "{'city': 'Oslo'}" },
    ] },
    { tool_calls: [{ id: 'call_c', name: 'get_weather', arguments: '{"city": "Rome", "days": 2' }] },
  ];
  upstream.script('tools', (_req, res) => writeSse(res, [sseText(streamChunks(choices, smallPieces, 'tools'))]));
  const { data } = await streamEvents({ model: 'tools', n: 2, messages: [], tools: TOOLS });
  for (const [c, spec] of choices.entries()) {
    for (const [k, call] of spec.tool_calls!.entries()) {
      const want = healJson(call.arguments, { schema: WEATHER_PARAMS }).text;
      const got = joined(data, toolArgs(c, k));
      t.equal(got.text, want, `choice ${c} call ${k}`);
      for (const p of got.prefixes) if (!want.startsWith(p)) t.fail(`sent ${p}, not a prefix of ${want}`);
    }
  }
  const report = JSON.parse(data.at(-2)!).jsonmend;
  t.equal(report.choices.length, 2);
  t.match(report.choices[0].tool_calls, [{ index: 0, id: 'call_a', name: 'get_weather', repaired: true }, { index: 1, id: 'call_b', repaired: true }]);
  t.equal(report.confidence, 'medium');
  // The chunk with finish_reason comes after every delta of its choice.
  const finishAt = data.findIndex((d) => d !== '[DONE]' && JSON.parse(d).choices[0]?.finish_reason === 'tool_calls' && JSON.parse(d).choices[0].index === 0);
  const lastDelta = data.findLastIndex((d) => d !== '[DONE]' && toolArgs(0, 0)(JSON.parse(d)));
  t.ok(finishAt > lastDelta, 'finish_reason after the last healed delta');
});

t.test('a long string argument grows in the client\'s deltas before its closing quote', async (t) => {
  const message = 'Dear team, the quarterly numbers are in and they look good. ' .repeat(4);
  const args = JSON.stringify({ to: 'team@example.com', body: message });
  const choices: ChoiceSpec[] = [{ tool_calls: [{ id: 'call_m', name: 'send_mail', arguments: args }] }];
  upstream.script('mail', (_req, res) => writeSse(res, [sseText(streamChunks(choices, smallPieces, 'mail'))]));
  const tools = [{ type: 'function' as const, function: { name: 'send_mail', parameters: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } } } } }];
  const { data } = await streamEvents({ model: 'mail', messages: [], tools });
  const got = joined(data, toolArgs(0, 0));
  t.equal(got.text, args);
  const growing = got.prefixes.filter((p) => p.startsWith('{"to":"team@example.com","body":"Dear') && !p.endsWith('"}') && p.length < args.length - 1);
  t.ok(growing.length > 20, `the body showed in ${growing.length} steps while it was written`);
});

t.test('the openai client streams and assembles the healed tool calls and JSON content', async (t) => {
  const stream = client.chat.completions.stream({ model: 'tools', n: 2, messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
  const final = await stream.finalChatCompletion();
  t.equal(final.choices[0]!.message.tool_calls![0]!.type === 'function' && final.choices[0]!.message.tool_calls![0]!.function.arguments, '{"city":"Paris","days":3}');
  // Cut inside the number (`2` may have been `20`): with the tool's schema the cut member is dropped.
  t.equal(final.choices[1]!.message.tool_calls![0]!.type === 'function' && final.choices[1]!.message.tool_calls![0]!.function.arguments, '{"city":"Rome"}');
  const fenced = '```json\n{"name": "Ada", "tags": ["x", "y",],}\n```';
  upstream.script('json', (_req, res) => writeSse(res, [sseText(streamChunks([{ content: fenced }], smallPieces, 'json'))]));
  const content = await client.chat.completions.stream({ model: 'json', messages: [], response_format: { type: 'json_object' } }).finalContent();
  t.equal(content, healJson(fenced).text);
});

t.test('SSE framing of any shape: CRLF, comments, events cut anywhere, data on several lines', async (t) => {
  const choices: ChoiceSpec[] = [{ tool_calls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city": "Lima", "days": None}' }] }];
  const chunks = streamChunks(choices, smallPieces, 'framing');
  // Pretty-printed JSON split over `data:` lines, CRLF line ends, a comment, then cut into 1–7 byte writes.
  const text = ': keep-alive\r\n\r\n' + chunks.map((c) => `data: ${JSON.stringify(JSON.parse(c), null, 1).split('\n').join('\r\ndata: ')}\r\n\r\n`).join('') + 'data: [DONE]\r\n\r\n';
  const bytes = Buffer.from(text);
  const random = createRandom(7);
  const writes: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = 1 + random.int(7);
    writes.push(bytes.subarray(i, i + n));
    i += n;
  }
  upstream.script('framing', (_req, res) => writeSse(res, writes as unknown as string[]));
  const { data } = await streamEvents({ model: 'framing', messages: [], tools: TOOLS });
  t.equal(joined(data, toolArgs(0, 0)).text, healJson('{"city": "Lima", "days": None}', { schema: WEATHER_PARAMS }).text);
  t.equal(data.at(-1), '[DONE]');
});

t.test('X-Jsonmend-Min-Confidence: the stream is not cut; its last chunk says the answer misses it', async (t) => {
  const { status, data } = await streamEvents({ model: 'tools', n: 2, messages: [], tools: TOOLS }, { 'x-jsonmend-min-confidence': 'high' });
  t.equal(status, 200);
  t.match(JSON.parse(data.at(-2)!).jsonmend, { confidence: 'medium', min_confidence: 'high', meets_min_confidence: false });
});

t.test('a client that goes away aborts the upstream request', async (t) => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => { release = resolve; });
  upstream.script('endless', async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${streamChunks([{ content: 'x' }], (s) => [s], 'endless')[0]}\n\n`);
    await req.aborted;
    release();
  });
  const controller = new AbortController();
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'endless', stream: true, messages: [] }), signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read(); // the first chunk arrived: the stream is flowing
  controller.abort();
  await held; // resolves only when the gateway closed the upstream request
  t.pass('the upstream saw its request aborted');
});

t.test('an upstream error on a streaming request passes through as it came', async (t) => {
  upstream.script('refused', (_req, res) => writeJson(res, 400, { error: { message: 'bad tools', type: 'invalid_request_error', param: 'tools', code: null } }));
  const error = await client.chat.completions.create({ model: 'refused', messages: [], stream: true }).catch((e: unknown) => e);
  t.ok(error instanceof OpenAI.BadRequestError);
  t.equal((error as InstanceType<typeof OpenAI.BadRequestError>).param, 'tools');
});

t.test('a non-streaming answer to a streaming request is healed whole', async (t) => {
  upstream.script('whole', (_req, res) => writeJson(res, 200, completion([{ content: '{"a": 1,}' }], 'whole')));
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'whole', stream: true, messages: [], response_format: { type: 'json_object' } }),
  });
  t.equal((await response.json()).choices[0].message.content, '{"a":1}');
});

t.test('an upstream that stalls mid-stream: the client gets an error event, then the end', async (t) => {
  const impatient = await startServer(t, { API_KEYS: `${KEY}:unlimited`, UPSTREAM_URL: upstream.url, UPSTREAM_TIMEOUT_MS: '300' });
  upstream.script('stall', async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${streamChunks([{ content: 'x' }], (s) => [s], 'stall')[0]}\n\n`);
    await req.aborted; // stalls until the gateway gives up and closes
  });
  const response = await fetch(`${impatient.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'stall', stream: true, messages: [] }),
  });
  const parser = new SseParser();
  const data: string[] = [];
  for await (const chunk of response.body!) for (const e of parser.push(chunk)) data.push(e.data);
  t.equal(JSON.parse(data[0]!).choices[0].delta.role, 'assistant', 'the first chunk passed');
  t.match(JSON.parse(data.at(-1)!), { error: { code: 'upstream_timeout', type: 'upstream_error' } });
  const error = await new OpenAI({ baseURL: `${impatient.url}/v1`, apiKey: KEY, maxRetries: 0 }).chat.completions
    .stream({ model: 'stall', messages: [] }).finalChatCompletion().catch((e: unknown) => e);
  t.ok(error instanceof Error, 'the openai client raises it');
});

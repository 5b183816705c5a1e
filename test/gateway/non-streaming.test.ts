// POST /v1/chat/completions without streaming, driven by the official `openai` client against a
// scripted upstream: what is healed (tool-call arguments against their tool's parameters, content
// under response_format), what passes untouched, the report and its header, the 422 policy, and
// the upstream's errors passed on with their status, body and Retry-After.
import t from 'tap';
import OpenAI from 'openai';
import { completion, ScriptedUpstream, writeJson } from '../../support/scripted-upstream.js';
import { startServer } from '../helpers/start-server.js';

const KEY = 'sk_live_gatewaytestkey0123456789abcdef';
const upstream = await ScriptedUpstream.start();
t.teardown(() => upstream.close());
const server = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'sk-upstream-secret' });
const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'], additionalProperties: false },
  },
};

/** The raw answer: status, headers and the body text exactly as the gateway wrote it. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
}

t.test('a text answer passes byte for byte; the body went upstream as it came, with the operator key', async (t) => {
  const content = 'Hello, "world" — naïve\u2028 {not json,} \\u00e9 😀';
  const upstreamText = JSON.stringify(completion([{ content }], 'text')).replace('"usage"', '"logprobs_extra":1.50e-3,"usage"');
  upstream.script('text', (_req, res) => writeJson(res, 200, upstreamText));
  const sent = '{"model":"text","messages":[{"role":"user","content":"hi"}],"x_unknown_field":{"kept":[1,2.0]},"temperature":0.2}';
  const answer = await post(sent);
  t.equal(answer.status, 200);
  t.equal(answer.headers.get('x-jsonmend-confidence'), 'high');
  t.match(answer.headers.get('x-request-id'), /./);
  const last = upstream.requests.at(-1)!;
  t.equal(last.raw, sent, 'the body is forwarded byte for byte, unknown fields included');
  t.equal(last.headers['authorization'], 'Bearer sk-upstream-secret');
  t.equal(answer.text.slice(0, upstreamText.length - 1), upstreamText.slice(0, -1), 'the upstream bytes are kept; only the report is added');
  t.equal(answer.json.choices[0].message.content, content);
  t.same(answer.json.jsonmend, { confidence: 'high', min_confidence: null, meets_min_confidence: true, choices: [] });
  const viaClient = await client.chat.completions.create({ model: 'text', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(viaClient.choices[0]!.message.content, content);
  t.same(viaClient.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
});

t.test('tool-call arguments are healed against their tool, per call and per choice (n = 2)', async (t) => {
  upstream.script('tools', (_req, res) => writeJson(res, 200, completion([
    { tool_calls: [
      { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris", "days": "3",}<|call|>' },
      { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ] },
    { tool_calls: [{ id: 'call_c', name: 'unknown_tool', arguments: "{'x': None}" }] },
  ], 'tools')));
  const answer = await client.chat.completions.create({ model: 'tools', n: 2, messages: [{ role: 'user', content: 'weather' }], tools: [WEATHER] }).withResponse();
  const data = answer.data as any;
  t.equal(answer.response.headers.get('x-jsonmend-confidence'), 'medium');
  const [a, b] = data.choices[0].message.tool_calls;
  t.equal(a.function.arguments, '{"city":"Paris","days":3}', 'the string "3" became the integer the schema asks for');
  t.equal(b.function.arguments, '{"city":"Oslo"}', 'valid arguments as written');
  t.equal(data.choices[1].message.tool_calls[0].function.arguments, '{"x":null}', 'no schema: the syntax is healed');
  t.equal(data.choices[0].finish_reason, 'tool_calls');
  const report = data.jsonmend;
  t.equal(report.confidence, 'medium');
  t.equal(report.choices.length, 2);
  t.match(report.choices[0].tool_calls[0], { index: 0, id: 'call_a', name: 'get_weather', confidence: 'medium', repaired: true, success: true });
  t.match(report.choices[0].tool_calls[0].schema_repairs, [{ type: 'type_coercion', field: '/days' }]);
  t.match(report.choices[0].tool_calls[1], { index: 1, id: 'call_b', confidence: 'high', repaired: false });
  t.match(report.choices[1].tool_calls[0], { id: 'call_c', name: 'unknown_tool', repaired: true });
});

t.test('content is healed under response_format json_schema and json_object, never otherwise', async (t) => {
  const fenced = '```json\n{"name": "Ada", "age": "36"}\n```';
  upstream.script('format', (_req, res) => writeJson(res, 200, completion([{ content: fenced }], 'format')));
  const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
  const withSchema = await post({ model: 'format', messages: [], response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } });
  t.equal(withSchema.json.choices[0].message.content, '{"name":"Ada","age":36}');
  t.equal(withSchema.json.jsonmend.choices[0].content.repaired, true);
  const asObject = await post({ model: 'format', messages: [], response_format: { type: 'json_object' } });
  t.equal(asObject.json.choices[0].message.content, '{"name":"Ada","age":"36"}');
  const asText = await post({ model: 'format', messages: [] });
  t.equal(asText.json.choices[0].message.content, fenced, 'no response_format: the text is not touched');
  t.same(asText.json.jsonmend.choices, []);
});

t.test('an answer cut at the token limit is never high; a failed repair passes the text untouched', async (t) => {
  upstream.script('cut', (_req, res) => writeJson(res, 200, completion([{ content: '{"a": [1, 2', finish_reason: 'length' }], 'cut')));
  const cut = await post({ model: 'cut', messages: [], response_format: { type: 'json_object' } });
  t.equal(cut.json.choices[0].finish_reason, 'length');
  t.not(cut.headers.get('x-jsonmend-confidence'), 'high');
  t.not(cut.json.jsonmend.choices[0].content.confidence, 'high');
  upstream.script('hopeless', (_req, res) => writeJson(res, 200, completion([{ content: 'I cannot do that.' }], 'hopeless')));
  const hopeless = await post({ model: 'hopeless', messages: [], response_format: { type: 'json_object' } });
  t.equal(hopeless.json.choices[0].message.content, 'I cannot do that.');
  t.match(hopeless.json.jsonmend.choices[0].content, { success: false, confidence: 'low' });
  t.equal(hopeless.headers.get('x-jsonmend-confidence'), 'low');
});

t.test('X-Jsonmend-Min-Confidence: below it a 422 in the OpenAI shape with the report; at it the answer', async (t) => {
  const refused = await post({ model: 'tools', n: 2, messages: [], tools: [WEATHER] }, { 'x-jsonmend-min-confidence': 'high' });
  t.equal(refused.status, 422);
  t.match(refused.json.error, { type: 'jsonmend_low_confidence', code: 'low_confidence', param: null, message: /medium/ });
  t.match(refused.json.jsonmend, { confidence: 'medium', min_confidence: 'high', meets_min_confidence: false });
  const allowed = await post({ model: 'tools', n: 2, messages: [], tools: [WEATHER] }, { 'x-jsonmend-min-confidence': 'medium' });
  t.equal(allowed.status, 200);
  t.equal(allowed.json.jsonmend.meets_min_confidence, true);
  await t.rejects(client.chat.completions.create({ model: 'tools', messages: [], tools: [WEATHER] }, { headers: { 'X-Jsonmend-Min-Confidence': 'high' } }),
    { status: 422 });
});

t.test('upstream errors keep their status, body and Retry-After', async (t) => {
  const body = { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  upstream.script('busy', (_req, res) => writeJson(res, 429, body, { 'retry-after': '7' }));
  const answer = await post({ model: 'busy', messages: [] });
  t.equal(answer.status, 429);
  t.equal(answer.headers.get('retry-after'), '7');
  t.same(answer.json, body);
  const error = await client.chat.completions.create({ model: 'busy', messages: [] }).catch((e: unknown) => e);
  t.ok(error instanceof OpenAI.RateLimitError, 'the openai client raises its RateLimitError');
  upstream.script('broken', (_req, res) => writeJson(res, 500, '{"error":{"message":"boom","type":"server_error","param":null,"code":null}}'));
  const broken = await post({ model: 'broken', messages: [] });
  t.equal(broken.status, 500);
  t.equal(broken.json.error.message, 'boom');
});

t.test('refusals in the OpenAI error shape: no key, a wrong key, a body that is not JSON', async (t) => {
  const none = await post({ model: 'text', messages: [] }, { authorization: '' });
  t.equal(none.status, 401);
  t.match(none.json, { error: { type: 'authentication_error', code: 'invalid_api_key', param: null, message: String } });
  const error = await new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk_live_wrong', maxRetries: 0 }).chat.completions.create({ model: 'text', messages: [] })
    .catch((e: unknown) => e);
  t.ok(error instanceof OpenAI.AuthenticationError, 'the openai client raises its AuthenticationError');
  const notJson = await post('{"model": ');
  t.equal(notJson.status, 400);
  t.match(notJson.json.error, { type: 'invalid_request_error', code: 'invalid_request' });
});

t.test('the rate limit answers 429 in the OpenAI shape with Retry-After', async (t) => {
  const free = 'sk_live_gatewayfreekey0123456789abcdef';
  const limited = await startServer(t, { API_KEYS: `${free}:free`, UPSTREAM_URL: upstream.url });
  let answer: Awaited<ReturnType<typeof post>> | null = null;
  // The free tier allows 60 a minute: some request among the next 200 is refused, whatever the clock.
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`${limited.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${free}` }, body: JSON.stringify({ model: 'text', messages: [] }),
    });
    const text = await response.text();
    if (response.status !== 200) {
      answer = { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
      break;
    }
  }
  t.ok(answer !== null, 'refused within 200 requests');
  t.equal(answer!.status, 429);
  t.match(answer!.json.error, { type: 'rate_limit_error', code: 'rate_limit_exceeded' });
  t.match(answer!.headers.get('retry-after'), /^[0-9]+$/);
});

t.test('without UPSTREAM_URL, 503 upstream_not_configured; an unreachable upstream, 502; a silent one, 504', async (t) => {
  const bare = await startServer(t, { API_KEYS: `${KEY}:pro` });
  const missing = await fetch(`${bare.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' });
  t.equal(missing.status, 503);
  t.match(await missing.json(), { error: { code: 'upstream_not_configured', type: 'server_error' } });
  // A port nothing listens on: the closed upstream's.
  const gone = await ScriptedUpstream.start();
  await gone.close();
  const dead = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: gone.url });
  const unreachable = await fetch(`${dead.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{"model":"x"}' });
  t.equal(unreachable.status, 502);
  t.match(await unreachable.json(), { error: { code: 'upstream_unreachable', type: 'upstream_error' } });
  upstream.script('silent', () => { /* never answers */ });
  const impatient = await startServer(t, { API_KEYS: `${KEY}:pro`, UPSTREAM_URL: upstream.url, UPSTREAM_TIMEOUT_MS: '300' });
  const timedOut = await fetch(`${impatient.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{"model":"silent"}' });
  t.equal(timedOut.status, 504);
  t.match(await timedOut.json(), { error: { code: 'upstream_timeout' } });
});

// The gateway under the Vercel AI SDK's openai-compatible provider (generateText, streamText with
// zod tools and structured output), and the streaming property end to end: model outputs from the
// engine's corpora, cut into random SSE deltas, arrive through the real server as deltas whose join
// equals the non-streaming gateway's healed text for the same output, every prefix a prefix of it.
import t from 'tap';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateObject, generateText, streamText, tool } from 'ai';
import { z } from 'zod';
import { SseParser } from '../../server/gateway/sse-parser.js';
import { createRandom } from '../../support/random.js';
import { completion, ScriptedUpstream, sseText, streamChunks, writeJson, writeSse, type ChoiceSpec } from '../../support/scripted-upstream.js';
import { startServer } from '../helpers/start-server.js';
import { inputsOf } from '../helpers/fixture-inputs.js';

const KEY = 'sk_live_gatewayaisdkkey0123456789abcde';
const upstream = await ScriptedUpstream.start();
t.teardown(() => upstream.close());
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, UPSTREAM_URL: upstream.url });
const provider = createOpenAICompatible({ name: 'jsonmend', baseURL: `${server.url}/v1`, apiKey: KEY });

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string(), days: z.number().int() }),
});
const BROKEN = '{"city": "Paris", "days": "3",}<|call|>';

function onePiece(text: string): string[] {
  return [text];
}

t.test('generateText: the tool call the SDK parses is the healed one', async (t) => {
  upstream.script('sdk-tools', (_req, res) => writeJson(res, 200, completion([{ tool_calls: [{ id: 'call_1', name: 'weather', arguments: BROKEN }] }], 'sdk-tools')));
  const result = await generateText({ model: provider.chatModel('sdk-tools'), tools: { weather }, prompt: 'weather in Paris' });
  t.same(result.toolCalls.map((c) => [c.toolName, c.input]), [['weather', { city: 'Paris', days: 3 }]]);
  const sent = upstream.requests.at(-1)!.body;
  t.equal(sent.tools[0].function.name, 'weather', 'the SDK sent the tool with its JSON Schema parameters');
});

t.test('streamText: streamed tool-call deltas assemble into the healed call', async (t) => {
  const pieces = (s: string): string[] => s.match(/.{1,3}/gs) ?? [];
  upstream.script('sdk-stream', (_req, res) => writeSse(res, [sseText(streamChunks([{ tool_calls: [{ id: 'call_1', name: 'weather', arguments: BROKEN }] }], pieces, 'sdk-stream'))]));
  const result = streamText({ model: provider.chatModel('sdk-stream'), tools: { weather }, prompt: 'weather' });
  const calls = await result.toolCalls;
  t.same(calls.map((c) => c.input), [{ city: 'Paris', days: 3 }]);
  t.equal((await result.finishReason), 'tool-calls');
});

t.test('generateObject: a fenced answer under response_format arrives as the object', async (t) => {
  upstream.script('sdk-object', (_req, res) => writeJson(res, 200, completion([{ content: '```json\n{"name": "Ada", "age": "36",}\n```' }], 'sdk-object')));
  const model = createOpenAICompatible({ name: 'jsonmend', baseURL: `${server.url}/v1`, apiKey: KEY, supportsStructuredOutputs: true }).chatModel('sdk-object');
  const { object } = await generateObject({ model, schema: z.object({ name: z.string(), age: z.number().int() }), prompt: 'who' });
  t.same(object, { name: 'Ada', age: 36 });
  t.equal(upstream.requests.at(-1)!.body.response_format.type, 'json_schema');
});

t.test('property: streamed deltas join to the non-streaming healed text; every prefix is a prefix of it', async (t) => {
  // The request names the model output and how to cut it (an unknown field: it reaches the upstream as sent).
  const spec = (body: Record<string, any>): ChoiceSpec => (body['x_as'] === 'tool'
    ? { tool_calls: [{ id: 'call_p', name: 'p', arguments: body['x_text'] }] }
    : { content: body['x_text'] });
  upstream.script('prop', (req, res) => {
    const body = req.body;
    if (body['stream'] !== true) return writeJson(res, 200, completion([spec(body)], 'prop'));
    const random = createRandom(body['x_seed']);
    const cut = (text: string): string[] => {
      const out: string[] = [];
      for (let i = 0; i < text.length;) {
        const n = random.int(6); // 0: an empty delta
        out.push(text.slice(i, i + n));
        i += n;
      }
      return out;
    };
    // The SSE bytes themselves are cut at random too.
    const bytes = Buffer.from(sseText(streamChunks([spec(body)], cut, 'prop')));
    const writes: Buffer[] = [];
    for (let i = 0; i < bytes.length;) {
      const n = 1 + random.int(64);
      writes.push(bytes.subarray(i, i + n));
      i += n;
    }
    return writeSse(res, writes as unknown as string[]);
  });
  const schema = { type: 'object', properties: { name: { type: 'string' }, id: { type: 'integer' } } };
  const texts = inputsOf(new URL('../engine/fixtures/model-output.json', import.meta.url));
  t.ok(texts.length >= 20, `${texts.length} model outputs`);
  let failures = 0;
  for (const [i, text] of texts.entries()) {
    const as = i % 2 === 0 ? 'tool' : 'content';
    const base = {
      model: 'prop', messages: [], x_text: text, x_as: as, x_seed: i + 1,
      ...(as === 'tool' ? { tools: [{ type: 'function', function: { name: 'p', parameters: schema } }] } : { response_format: { type: 'json_object' } }),
    };
    const post = (stream: boolean): Promise<Response> => fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ ...base, stream }),
    });
    const whole = await (await post(false)).json();
    const want: string = as === 'tool' ? whole.choices[0].message.tool_calls[0].function.arguments : whole.choices[0].message.content;
    const parser = new SseParser();
    let sent = '';
    let prefixOk = true;
    for await (const chunk of (await post(true)).body!) {
      for (const e of parser.push(chunk)) {
        if (e.data === '[DONE]') continue;
        const delta = JSON.parse(e.data).choices[0]?.delta;
        const piece = as === 'tool' ? delta?.tool_calls?.[0]?.function?.arguments : delta?.content;
        if (typeof piece !== 'string') continue;
        sent += piece;
        if (!want.startsWith(sent)) prefixOk = false;
      }
    }
    if (sent !== want || !prefixOk) {
      failures++;
      t.fail(`output ${i} (${as}): sent ${JSON.stringify(sent)}, healed ${JSON.stringify(want)}`);
    }
  }
  t.equal(failures, 0, `${texts.length} outputs streamed`);
});

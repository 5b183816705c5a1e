// The gateway: the official `openai` client pointed at jsonmend instead of the model API. The model's
// tool-call arguments arrive repaired against the tool's `parameters`, streamed or not, with a report
// of what changed. The operator set UPSTREAM_URL (and UPSTREAM_API_KEY) on the jsonmend service.
//   npm install openai
//   JSONMEND_KEY=sk_live_... node gateway.mjs
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: `${process.env.JSONMEND_URL ?? 'http://localhost:8080'}/v1`,
  apiKey: process.env.JSONMEND_KEY, // the jsonmend key, not the model provider's
});
const model = process.env.JSONMEND_MODEL ?? 'gpt-4o-mini';
const tools = [{
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
}];
const messages = [{ role: 'user', content: 'What will the weather be in Paris for the next 3 days?' }];

// Non-streaming: the healed arguments, the worst confidence in a header, the details in `jsonmend`.
const { data, response } = await client.chat.completions.create({ model, messages, tools }).withResponse();
console.log(data.choices[0].message.tool_calls[0].function.arguments);
console.log(`confidence: ${response.headers.get('x-jsonmend-confidence')}`);
for (const call of data.jsonmend.choices[0]?.tool_calls ?? []) {
  for (const r of [...call.syntax_repairs, ...call.schema_repairs]) console.log(`- ${call.name}: ${r.type} (${r.confidence})`);
}

// Streaming: the deltas the client joins are the healed arguments, sent as the model writes them.
const stream = client.chat.completions.stream({ model, messages, tools });
const final = await stream.finalChatCompletion();
console.log(`streamed: ${final.choices[0].message.tool_calls[0].function.arguments}`);

// Streaming a model's output through jsonmend while it is generated: each text delta is pushed as it
// arrives, every state says whether what has arrived so far is safe to show, and the end result is
// the repair of the whole text. `model()` stands in for an SDK's stream; with OpenAI it would be:
//
//   const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
//   async function* deltas() { for await (const part of completion) { const t = part.choices[0]?.delta?.content; if (t) yield t; } }
//
//   JSONMEND_KEY=sk_live_... node stream-deltas.mjs
import { Jsonmend } from 'jsonmend-client';

const jm = new Jsonmend({ apiKey: process.env.JSONMEND_KEY, baseUrl: process.env.JSONMEND_URL ?? 'http://localhost:8080' });

/** A model's chat-completion chunks, in the OpenAI SDK's shape, a few characters at a time. */
async function* model() {
  const answer = 'Sure:\n```json\n{"planets": [{"name": "Mercury", "moons": 0}, {"name": "Venus", "moons": 0}, {"name": "Earth", "moons": 1},]}\n```';
  yield { choices: [{ delta: { role: 'assistant' } }] };
  for (let i = 0; i < answer.length; i += 6) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    yield { choices: [{ delta: { content: answer.slice(i, i + 6) } }] };
  }
}

async function* deltas() {
  for await (const part of model()) {
    const text = part.choices[0]?.delta?.content;
    if (text) yield text;
  }
}

let states = 0;
const result = await jm.repairStream(deltas(), {
  onState: (state) => {
    states += 1;
    // Every state says how far the text has got: open brackets, whether it parses as it stands
    // (then `partial` is the value and `safe_to_emit` is true), what may come next.
    if (states % 5 === 0) console.log(`after ${states} chunks: depth ${state.brace_depth}, expecting ${state.expected_next.join(' or ')}`);
  },
  onRestart: ({ error, replayedChars }) => console.warn(`session lost (${error.code}); replayed ${replayedChars} characters`),
});
console.log(`${states} chunks streamed; repaired: ${JSON.stringify(result.repaired)}`);

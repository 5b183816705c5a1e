// jsonmend/client's previews against the real server: repairStream's onPreview, fed an OpenAI-style
// delta stream of a fenced reply, sees the answer grow (patch previews applied client-side) and ends
// on the repaired value; startStream passes `preview` through.
import t from 'tap';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { Jsonmend } from 'jsonmend/client';
import { startServer } from '../helpers/start-server.js';

const KEY = generateApiKey();
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });

const REPLY = 'Sure! Here is the ticket:\n```json\n{"title": "Printer on floor 3 jams", "priority": "high", ' +
  '"steps": ["open tray 2", "remove the paper", "restart"], "estimate": 1.5}\n```\nAnything else?';

/** What the OpenAI SDK's stream yields: chat-completion chunks with a text delta each. */
async function* completion(): AsyncGenerator<{ choices: Array<{ delta: { content?: string } }> }> {
  for (let i = 0; i < REPLY.length; i += 7) yield { choices: [{ delta: { content: REPLY.slice(i, i + 7) } }] };
  yield { choices: [{ delta: {} }] };
}

async function* deltas(): AsyncGenerator<string> {
  for await (const part of completion()) {
    const text = part.choices[0]?.delta?.content;
    if (text) yield text;
  }
}

t.test('repairStream onPreview: the answer grows while the model writes, and ends on the repaired value', async (t) => {
  const schema = {
    type: 'object',
    properties: { title: { type: 'string' }, priority: { enum: ['low', 'high'] }, steps: { type: 'array', items: { type: 'string' } }, estimate: { type: 'number' } },
  };
  const seen: Array<{ value: unknown; settled: string[]; text: string }> = [];
  // No copy: a value handed to onPreview never changes afterwards.
  const result = await jm.repairStream(deltas(), { schema, onPreview: (value, settled) => seen.push({ value, settled, text: JSON.stringify(value) }) });
  t.equal(result.success, true);
  t.ok(seen.every((s) => JSON.stringify(s.value) === s.text), 'every preview is as it was when it was handed out');
  t.ok(seen.length > 5, `${seen.length} previews`);
  const titles = seen.map((s) => (s.value as { title?: string } | null)?.title).filter((x): x is string => typeof x === 'string');
  t.ok(titles.some((title) => title.length > 0 && title !== 'Printer on floor 3 jams'), 'the title shows while it is written');
  for (let k = 1; k < titles.length; k++) t.ok(titles[k]!.startsWith(titles[k - 1]!), 'and only grows');
  for (const { value } of seen) {
    const v = value as { priority?: string; estimate?: number } | null;
    t.ok(v?.priority === undefined || v.priority === 'high', 'the enum appears only whole');
    t.ok(v?.estimate === undefined || v.estimate === 1.5, 'the number appears only whole');
  }
  t.ok(seen.some((s) => s.settled.includes('/priority')), 'settled names what became final');
  t.same(seen.at(-1)!.value, result.repaired, 'the last preview is the repaired value');
  t.same(seen.at(-1)!.settled, ['']);
});

t.test('startStream({ preview }) passes the mode through', async (t) => {
  const s = await jm.startStream({ preview: 'progressive' });
  const first = await s.push('{"a": "x');
  t.same(first.partial, { a: 'x' });
  t.same(first.settled, []);
  const second = await s.push('yz", "b": 2}');
  t.same(second.partial, { a: 'xyz', b: 2 });
  t.same(second.settled, ['']);
  t.same((await s.finalize()).repaired, { a: 'xyz', b: 2 });
  const patch = await jm.startStream({ preview: 'patch' });
  t.same((await patch.push('[1, 2')).partial_patch, [{ op: 'add', path: '', value: [1] }]);
  await patch.finalize();
});

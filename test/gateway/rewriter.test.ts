// The stream rewriter in process: what happens to chunks whose healed delta released nothing, the
// finishing deltas before finish_reason, an answer cut at the token limit, and the whole-answer
// healer's splice of the report into the upstream's own bytes.
import t from 'tap';
import { healJson } from '../../engine/index.js';
import { healCompletion } from '../../server/gateway/heal-completion.js';
import { ReportBuilder } from '../../server/gateway/heal-report.js';
import { StreamRewriter } from '../../server/gateway/stream-rewriter.js';
import { streamChunks } from '../../support/scripted-upstream.js';

const SCHEMA = { type: 'object', properties: { city: { type: 'string' } } };
const plan = { stream: true, toolSchemas: new Map<string, object>([['w', SCHEMA]]), content: null };

function run(chunks: string[], rewriter = new StreamRewriter(plan, null)): any[] {
  const out = chunks.map((data) => rewriter.rewrite({ event: '', data })).join('') + rewriter.rewrite({ event: '', data: '[DONE]' });
  return out.split('\n\n').filter((e) => e !== '').map((e) => e.slice('data: '.length)).map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

t.test('empty releases: the naming delta keeps its id and name; a bare empty delta is dropped', async (t) => {
  const args = "{'city': 'Oslo'}"; // held back from the first quote on: nothing released until the end
  const chunks = streamChunks([{ tool_calls: [{ id: 'call_1', name: 'w', arguments: args }] }], (s) => s.match(/.{1,2}/gs)!);
  const events = run(chunks);
  const naming = events.find((e) => e !== '[DONE]' && e.choices[0]?.delta?.tool_calls?.[0]?.id === 'call_1');
  t.match(naming.choices[0].delta.tool_calls[0], { id: 'call_1', type: 'function', function: { name: 'w', arguments: '' } });
  const argumentChunks = events.filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments !== undefined);
  const joined = argumentChunks.map((e) => e.choices[0].delta.tool_calls[0].function.arguments).join('');
  t.equal(joined, healJson(args, { schema: SCHEMA }).text);
  t.ok(events.length < chunks.length + 2, 'chunks that released nothing and said nothing else were dropped');
  const finishAt = events.findIndex((e) => e !== '[DONE]' && e.choices[0]?.finish_reason === 'tool_calls');
  t.ok(finishAt > events.indexOf(argumentChunks.at(-1)), 'the held-back rest comes before finish_reason');
  t.same(events.at(-1), '[DONE]');
  t.match(events.at(-2), { choices: [], jsonmend: { choices: [{ index: 0, tool_calls: [{ id: 'call_1', name: 'w', repaired: true }] }] } });
});

t.test('finish_reason "length": the report is never high', async (t) => {
  const chunks = streamChunks([{ tool_calls: [{ id: 'c', name: 'w', arguments: '{"city":"Os' }], finish_reason: 'length' }], (s) => [s]);
  const report = run(chunks).at(-2).jsonmend;
  t.not(report.confidence, 'high');
  t.match(report.choices[0].tool_calls[0].warnings, [{ code: 'TRUNCATED_OUTPUT' }]);
});

t.test('a whole completion with nothing changed keeps its bytes; the report goes before its last brace', async (t) => {
  const raw = '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c","type":"function","function":{"name":"w","arguments":"{\\"city\\":\\"Oslo\\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"total_tokens":1.50e1}}\n';
  const out = healCompletion(raw, { ...plan, stream: false }, new ReportBuilder(null))!;
  t.equal(out.slice(0, raw.lastIndexOf('}')), raw.slice(0, raw.lastIndexOf('}')), 'the upstream bytes, 1.50e1 included');
  t.equal(JSON.parse(out).jsonmend.confidence, 'high');
  t.equal(healCompletion('{}', plan, new ReportBuilder(null)), null, 'not a completion: passed on untouched by the caller');
  t.equal(healCompletion('[1', plan, new ReportBuilder(null)), null);
});

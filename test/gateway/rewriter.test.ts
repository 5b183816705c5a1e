// The stream rewriter in process: what happens to chunks whose healed delta released nothing, the
// finishing deltas before finish_reason, an answer cut at the token limit, and the whole-answer
// healer's splice of the report into the upstream's own bytes.
import t from 'tap';
import { healJson } from '../../engine/index.js';
import { healCompletion } from '../../server/gateway/heal-completion.js';
import { ReportBuilder, reportJson } from '../../server/gateway/heal-report.js';
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

t.test('a healed completion: the healed strings are spliced into the upstream bytes, every other byte kept', async (t) => {
  const broken = "{'city': 'Oslo'}";
  const healed = healJson(broken, { schema: SCHEMA }).text;
  const whole = { ...plan, stream: false }; // content is text: passed through
  // Two calls with the same arguments, a text answer that quotes a lookalike member (escaped inside
  // its string), usage and logprobs spelled as no JSON.stringify would.
  const call = (id: string): string => `{"id":"${id}","type":"function","function":{"name":"w","arguments":${JSON.stringify(broken)}}}`;
  const lookalike = JSON.stringify(`{"arguments": ${JSON.stringify(broken)}}`);
  const raw = `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":${lookalike},"tool_calls":[${call('a')}, ${call('b')}]},` +
    `"logprobs":{"p":1.0,"t":"caf\\u00e9"},"finish_reason":"tool_calls"}],"usage":{"total_tokens":1.50e1}}`;
  const out = healCompletion(raw, whole, new ReportBuilder(null))!;
  const expected = raw.split(JSON.stringify(broken)).join(JSON.stringify(healed));
  t.not(expected, raw, 'the arguments were changed');
  t.equal(out.slice(0, out.lastIndexOf(',"jsonmend"')), expected.slice(0, expected.lastIndexOf('}')), 'only the healed strings differ from the upstream bytes (1.0, \\u00e9 and 1.50e1 kept)');
  const parsed = JSON.parse(out);
  t.equal(parsed.choices[0].message.content, JSON.parse(lookalike), 'the text content is not taken for arguments');
  t.same(parsed.choices[0].message.tool_calls.map((c: any) => c.function.arguments), [healed, healed]);
  t.equal(parsed.jsonmend.choices[0].tool_calls.length, 2);
});

t.test('a healed completion whose upstream spells a string with other escapes is spliced all the same', async (t) => {
  const raw = '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"w","arguments":"{\'city\': \'Oslo\\/Bergen\'}"}}]},"finish_reason":"tool_calls","usage":1.50e1}]}';
  const text = healCompletion(raw, { ...plan, stream: false }, new ReportBuilder(null))!;
  const out = JSON.parse(text);
  t.equal(out.choices[0].message.tool_calls[0].function.arguments, '{"city":"Oslo/Bergen"}');
  t.equal(out.id, 'x');
  t.equal(out.jsonmend.choices[0].tool_calls[0].repaired, true);
  t.ok(text.includes('"usage":1.50e1'), 'the other bytes kept');
});

t.test('a member name spelled with an escape is not found by its text: the completion is written again, the same values', async (t) => {
  const raw = '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"w","argu\\u006dents":"{\'city\': \'Oslo\'}"}}]},"finish_reason":"tool_calls","usage":1.50e1}]}';
  const text = healCompletion(raw, { ...plan, stream: false }, new ReportBuilder(null))!;
  const out = JSON.parse(text);
  t.equal(out.choices[0].message.tool_calls[0].function.arguments, '{"city":"Oslo"}');
  t.equal(out.jsonmend.choices[0].tool_calls[0].repaired, true);
  t.ok(text.includes('"usage":15'), 'JSON.stringify\'s spelling');
});

t.test('the report written by hand is what JSON.stringify writes of it', async (t) => {
  for (const [args, min] of [["{'city': 'Oslo'}", null], ['{"city": "Oslo"}', 'high'], ['{"city": "Os', 'medium'], ['', null], ['not json at all', 'high']] as const) {
    const raw = JSON.stringify({ choices: [{ index: 0, message: { content: "{answer: True}", tool_calls: [{ id: 'c"1', function: { name: 'w', arguments: args } }, { function: { name: null, arguments: args } }] } }, { index: 1, message: { content: '[1, 2' } }] });
    const builder = new ReportBuilder(min);
    healCompletion(raw, { ...plan, stream: false, content: { schema: undefined } }, builder);
    const report = builder.build();
    t.equal(reportJson(report), JSON.stringify(report), JSON.stringify(args));
  }
});

t.test('a healed completion whose message writes tool_calls before content: both spliced where they are', async (t) => {
  const args = "{'city': 'Oslo'}";
  const content = "{answer: True}";
  const raw = `{"choices":[{"index":0,"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"w","arguments":${JSON.stringify(args)}}}],` +
    `"content":${JSON.stringify(content)},"role":"assistant"},"finish_reason":"stop"}],"usage":{"x":2.50}}`;
  const out = healCompletion(raw, { ...plan, stream: false, content: { schema: undefined } }, new ReportBuilder(null))!;
  const expected = raw.replace(JSON.stringify(args), JSON.stringify('{"city":"Oslo"}')).replace(JSON.stringify(content), JSON.stringify('{"answer":true}'));
  t.equal(out.slice(0, out.lastIndexOf(',"jsonmend"')), expected.slice(0, expected.lastIndexOf('}')));
});

// The gateway's SSE reader on every framing the standard allows, and the recogniser of the common
// chunk shape the stream rewriter splices instead of parsing (it must refuse anything else).
import t from 'tap';
import { DeltaShapes } from '../../server/gateway/delta-shape.js';
import { SseParser } from '../../server/gateway/sse-parser.js';

function parseAll(pieces: (string | Buffer)[]): { event: string; data: string }[] {
  const parser = new SseParser();
  return pieces.flatMap((p) => parser.push(typeof p === 'string' ? Buffer.from(p) : p));
}

t.test('SSE: LF, CRLF and CR line ends, comments, named events, several data lines, a space kept', async (t) => {
  t.same(parseAll(['data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n']).map((e) => e.data), ['a', 'b', 'c', 'd']);
  t.same(parseAll([': ping\n\nevent: error\ndata: x\n\n']), [{ event: 'error', data: 'x' }]);
  t.same(parseAll(['data: {\ndata:  "a": 1\ndata: }\n\n']).map((e) => e.data), ['{\n "a": 1\n}']);
  t.same(parseAll(['data\n\n']), [{ event: '', data: '' }], 'a data field with no value is an event with empty data (as the standard says)');
  t.same(parseAll(['id: 7\nretry: 10\ndata: z\n\n']).map((e) => e.data), ['z']);
});

t.test('SSE: an event cut anywhere, a CRLF cut between CR and LF, a UTF-8 character cut in two', async (t) => {
  const text = Buffer.from('data: {"x":"é漢😀"}\r\n\r\ndata: [DONE]\r\n\r\n');
  const whole = parseAll([text]);
  for (let cut = 1; cut < text.length; cut++) {
    t.same(parseAll([text.subarray(0, cut), text.subarray(cut)]), whole, `cut at ${cut}`);
  }
  const bytes = [...text].map((b) => Buffer.from([b]));
  t.same(parseAll(bytes), whole, 'one byte at a time');
  t.same(whole.map((e) => e.data), ['{"x":"é漢😀"}', '[DONE]']);
});

const HEAD = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m"';
const tail = ',"logprobs":null,"finish_reason":null}]}';

t.test('delta shapes: one content or arguments string, at the top level, unfinished', async (t) => {
  const shapes = new DeltaShapes();
  const content = `${HEAD},"choices":[{"index":1,"delta":{"content":"a\\"b"}${tail}`;
  const shape = shapes.of(content)!;
  t.match(shape, { choice: 1, tool: -1, bare: true });
  t.equal(content.slice(shape.start, shape.end), 'a\\"b');
  const args = `${HEAD},"choices":[{"index":0,"delta":{"tool_calls":[{"index":12,"function":{"arguments":"{\\"x"}}]}${tail.slice(0, -1)},"usage":null}`;
  t.match(shapes.of(args), { choice: 0, tool: 12, bare: false });
  const refused = [
    `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"stop"}]}`,
    `${HEAD},"choices":[{"index":0,"delta":{"content":"a"}${tail.slice(0, -2)},{"index":1,"delta":{}}]}`,
    `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":"a"}${tail}`,
    `${HEAD},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":""}}]}${tail}`,
    `{"x":{"choices":[{"index":0,"delta":{"content":"a"}${tail}}`,
    `{"model":"\\"choices\\":[{\\"index\\":","choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]},"finish_reason":null}]}`,
  ];
  for (const text of refused) t.equal(new DeltaShapes().of(text), null, text);
});

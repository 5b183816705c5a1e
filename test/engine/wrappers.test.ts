// Rule 5, "not data": a reasoning wrapper (`<think>`, `<thinking>`, `<reasoning>`, …, a lone closing
// tag, a "Thinking:" preamble) is never the answer, even when a draft inside it fits the schema;
// tool-call wrappers (`[TOOL_CALLS]`, `<|python_tag|>`, `<function=name>`) are not data, the JSON
// inside or after them is. Generated: an answer, a different draft, and each wrapper around them.
import fc from 'fast-check';
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);

const key = fc.stringMatching(/^[a-z]{1,6}$/);
const scalar = fc.oneof(fc.integer({ min: -999, max: 99999 }), fc.constantFrom(true, false, null), fc.stringMatching(/^[a-z ]{1,12}$/));
const obj = fc.dictionary(key, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })), { minKeys: 1, maxKeys: 4 });
/** An answer and a draft that differ. */
const pair = fc.tuple(obj, obj).filter(([a, d]) => JSON.stringify(a) !== JSON.stringify(d));
const tag = fc.constantFrom('think', 'thinking', 'reasoning', 'thought', 'reflection', 'scratchpad', 'THINK');
const words = fc.constantFrom('Let me draft it:', 'maybe', 'First try', 'The user wants JSON. Draft:', '');
const sep = fc.constantFrom('', '\n', '\n\n', ' ');

/** The same text pushed in pieces of `size`: finalize answers what repair does. */
function streamed(text: string, size: number): unknown {
  const s = createStream();
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
  return s.finalize();
}

t.test('a reasoning block before the answer: the answer, never the draft', (t) => {
  fc.assert(fc.property(pair, tag, words, sep, fc.constantFrom(' ', '\n'), ([answer, draft], name, before, after, inner) => {
    const text = `<${name}>${before}${inner}${JSON.stringify(draft, null, inner === '\n' ? 1 : 0)}${inner}</${name}>${after}${JSON.stringify(answer)}`;
    const r = repair(text);
    if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify(answer)) return false;
    return JSON.stringify(streamed(text, 5)) === JSON.stringify(r);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('a lone closing tag: what came before it was reasoning', (t) => {
  fc.assert(fc.property(pair, tag, words, sep, ([answer, draft], name, before, after) => {
    const text = `${before} ${JSON.stringify(draft)}\n</${name.toLowerCase()}>${after}${JSON.stringify(answer)}`;
    const r = repair(text);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(answer);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('a "Thinking:" preamble up to its blank line is reasoning', (t) => {
  const label = fc.constantFrom('Thinking:', 'Reasoning:', 'Thoughts:', 'thinking :');
  const lead = fc.constantFrom('', 'Answer: ', 'Final answer:\n', '```json\n');
  fc.assert(fc.property(pair, label, words, lead, ([answer, draft], l, before, l2) => {
    const body = JSON.stringify(answer);
    const text = `${l} ${before} ${JSON.stringify(draft)} fits.\n\n${l2}${body}${l2 === '```json\n' ? '\n```' : ''}`;
    const labelled = `${l} ${before} ${JSON.stringify(draft)} fits.\nAnswer: ${body}`;
    const react = repair(labelled);
    if (!react.success || JSON.stringify(react.repaired) !== JSON.stringify(answer) || react.metadata.confidence !== 'high') return false;
    const r = repair(text);
    return r.success && JSON.stringify(r.repaired) === JSON.stringify(answer);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('a draft in reasoning that fits the schema is not chosen over the answer', (t) => {
  fc.assert(fc.property(fc.integer({ min: 0, max: 999 }), tag, fc.boolean(), (id, name, preamble) => {
    const schema = { type: 'object', properties: { id: { type: 'number' }, name: { type: 'string' } }, required: ['id'] };
    const draft = `{"id": ${id}}`;
    const text = preamble ? `Thinking: try ${draft}\n\n{"name": "x"}` : `<${name}>Draft: ${draft}</${name}>\n{"name": "x"}`;
    const r = repair(text, { schema });
    return !r.success; // the answer lacks `id`: a failure, never the draft
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

t.test('reasoning alone is no answer', (t) => {
  fc.assert(fc.property(obj, tag, sep, (draft, name, inner) => !repair(`<${name}>${inner}${JSON.stringify(draft)}${inner}</${name}>`).success),
    { seed: SEED, numRuns: 100 });
  t.end();
});

t.test('tool-call wrappers are not data: the JSON in or after them is, at high', (t) => {
  const wrap = fc.constantFrom(
    (j: string) => `[TOOL_CALLS]${j}`, (j: string) => `[TOOL_CALLS] [${j}]`, (j: string) => `<|python_tag|>${j}`,
    (j: string) => `<|python_tag|>${j}<|eom_id|>`, (j: string) => `<function=get_weather>${j}</function>`,
    (j: string) => `<function=lookup>\n${j}\n</function>`, (j: string) => `<tool_call>\n${j}\n</tool_call>`,
  );
  fc.assert(fc.property(obj, wrap, (value, w) => {
    const json = JSON.stringify(value);
    const text = w(json);
    const r = repair(text);
    const want = text.startsWith('[TOOL_CALLS] [') ? [value] : value;
    if (!r.success || JSON.stringify(r.repaired) !== JSON.stringify(want)) return false;
    return r.metadata.confidence === 'high' && JSON.stringify(streamed(text, 3)) === JSON.stringify(r);
  }), { seed: SEED, numRuns: 200 });
  t.end();
});

t.test('harmony analysis channel, markers inside prose, several function calls', (t) => {
  fc.assert(fc.property(pair, fc.constantFrom('', 'Sure. ', 'Calling the tool now.\n'), ([answer, draft], lead) => {
    const a = JSON.stringify(answer);
    const harmony = repair(`<|channel|>analysis<|message|>Draft ${JSON.stringify(draft)}<|end|><|start|>assistant<|channel|>final<|message|>${a}`);
    const marker = repair(`${lead}[TOOL_CALLS]${a}`);
    const args = repair(`${lead}[TOOL_CALLS]get_weather[ARGS]${a}`);
    const calls = repair(`<function=f>${a}</function>\n<function=g>${JSON.stringify(draft)}</function>`);
    return same(harmony.repaired, answer) && same(marker.repaired, answer) && same(args.repaired, answer) &&
      same(calls.repaired, [answer, draft]) && calls.metadata.confidence === 'medium';
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('an answer read from inside reasoning that never closed is never high', (t) => {
  fc.assert(fc.property(obj, tag, words, (value, name, before) => {
    const r = repair(`<${name}>${before} ${JSON.stringify(value)}`);
    return !r.success || r.metadata.confidence !== 'high';
  }), { seed: SEED, numRuns: 100 });
  t.end();
});

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

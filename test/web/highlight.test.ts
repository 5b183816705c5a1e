// The playground's marking of repair positions (web/highlight.ts): pure, so tested directly.
import t from 'tap';
import { lineAndColumn, segmentsFor } from '../../web/highlight.js';

const join = (segments: { text: string }[]): string => segments.map((s) => s.text).join('');

t.test('marks the character at each position and keeps the text whole', async (t) => {
  const input = "{a: 'b',}";
  const segments = segmentsFor(input, [
    { index: 0, type: 'quoted_unquoted_keys', position: 1 },
    { index: 1, type: 'converted_single_quotes', position: 4 },
    { index: 2, type: 'removed_trailing_comma', position: 7 },
  ]);
  t.equal(join(segments), input);
  const marks = segments.filter((s) => s.repairs !== undefined);
  t.same(marks.map((m) => [m.position, m.text, m.repairs!.map((r) => r.type)]), [
    [1, 'a', ['quoted_unquoted_keys']],
    [4, "'", ['converted_single_quotes']],
    [7, ',', ['removed_trailing_comma']],
  ]);
});

t.test('repairs at one position share a mark; order of the answer is kept', async (t) => {
  const segments = segmentsFor('[1,,2', [
    { index: 0, type: 'removed_duplicate_comma', position: 3 },
    { index: 1, type: 'other', position: 3 },
  ]);
  const marks = segments.filter((s) => s.repairs !== undefined);
  t.equal(marks.length, 1);
  t.same(marks[0]!.repairs!.map((r) => r.index), [0, 1]);
});

t.test('a position at the end is an empty insertion mark; beyond the end is clamped', async (t) => {
  const segments = segmentsFor('{"a":1', [
    { index: 0, type: 'closed_object_bracket', position: 6 },
    { index: 1, type: 'late', position: 99 },
  ]);
  const last = segments[segments.length - 1]!;
  t.equal(last.text, '');
  t.equal(last.position, 6);
  t.same(last.repairs!.map((r) => r.type), ['closed_object_bracket', 'late']);
  t.equal(join(segments), '{"a":1');
});

t.test('a surrogate pair is marked whole, never split', async (t) => {
  const input = '["😀",]';
  const segments = segmentsFor(input, [
    { index: 0, type: 'x', position: 2 },
    { index: 1, type: 'y', position: 3 }, // the low half: reported on the same mark
  ]);
  const marks = segments.filter((s) => s.repairs !== undefined);
  t.equal(marks.length, 1);
  t.equal(marks[0]!.text, '😀');
  t.same(marks[0]!.repairs!.map((r) => r.type), ['x', 'y']);
  t.equal(join(segments), input);
});

t.test('negative and non-integer positions are ignored', async (t) => {
  const segments = segmentsFor('abc', [{ index: 0, type: 'x', position: -1 }, { index: 1, type: 'y', position: 1.5 }]);
  t.same(segments, [{ text: 'abc' }]);
});

t.test('line and column are 1-based', async (t) => {
  const input = 'Sure:\n```json\n{a:1}';
  t.same(lineAndColumn(input, 0), { line: 1, column: 1 });
  t.same(lineAndColumn(input, 6), { line: 2, column: 1 });
  t.same(lineAndColumn(input, 15), { line: 3, column: 2 });
});

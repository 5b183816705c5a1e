// The fast lane's code-unit array (engine/scanner/code-units.ts): the text's UTF-16 exactly, zeros
// after it, and no reading of an earlier, longer window's leftovers.
import t from 'tap';
import { codeUnitsOf, SENTINELS, writeCodeUnits } from '../../engine/scanner/code-units.js';
import { repair } from '../../engine/index.js';
import { Scanner } from '../../engine/scanner/scanner.js';

function expectUnits(t: { same: (a: unknown, b: unknown, m?: string) => unknown }, text: string, units: Uint16Array): void {
  const wrong: number[] = [];
  for (let k = 0; k < text.length; k++) if (units[k] !== text.charCodeAt(k)) wrong.push(k);
  t.same(wrong, [], 'every code unit as charCodeAt reads it');
  t.same(Array.from(units.subarray(text.length, text.length + SENTINELS)), new Array(SENTINELS).fill(0), 'zeros after the text');
}

t.test('copies one-byte, two-byte and unpaired-surrogate text', async (t) => {
  for (const text of ['', '{"a": 1}', 'данные 日本語 é', 'lone \ud800 high and \udc00 low', '\u0000nul\u0000', 'x'.repeat(1000)]) {
    expectUnits(t, text, codeUnitsOf(text));
  }
});

t.test('a window longer than the shared array gets a large array, reused while it fits', async (t) => {
  const small = codeUnitsOf('{}');
  const large = 'é'.repeat(70_000) + '{"a": [1, 2]}';
  const units = codeUnitsOf(large);
  t.not(units, small);
  expectUnits(t, large, units);
  t.equal(codeUnitsOf('[]'), small, 'small windows share one array');
  const shorter = 'x'.repeat(66_000);
  t.equal(codeUnitsOf(shorter), units, 'a shorter large window reuses it');
  expectUnits(t, shorter, units);
  const longer = 'y'.repeat(units.length + 10);
  const grown = codeUnitsOf(longer);
  t.not(grown, units, 'a window past its length gets a new one');
  expectUnits(t, longer, grown);
});

// The large array still holds a longer window's units past a shorter one's end: the same rule as
// the shared one, read through the repair.
t.test('a large window never reads the units a longer one left behind', async (t) => {
  const pad = 'x'.repeat(80_000);
  t.equal(repair(`{"pad": "${pad}", "k": "abcdef", "z": [1, 2, 3],}`).metadata.was_repaired, true);
  const cut = repair(`{"pad": "${pad.slice(1000)}", "k": "abc`);
  t.same(cut.repaired, { pad: pad.slice(1000), k: 'abc' });
  t.ok(cut.metadata.syntax_repairs.some((d) => d.type === 'closed_string'), 'reported as a string cut off');
});

t.test('without Buffer the copy is made with charCodeAt', async (t) => {
  const text = 'ab\ud83d\ude00 данные';
  const units = new Uint16Array(text.length + SENTINELS).fill(0xffff);
  writeCodeUnits(text, units, undefined);
  expectUnits(t, text, units);
});

// The shared array still holds a longer text's units past a short window's end: were the zeros not
// written, a cut string would run on into the old text and end at its quote.
t.test('a short window never reads the units a longer one left behind', async (t) => {
  // Each longer text is broken (a trailing comma), so the scanner reads it: valid JSON never does.
  t.equal(repair('{"k": "abcdef", "z": [1, 2, 3], "w": true,}').metadata.was_repaired, true);
  const cut = repair('{"k": "abc');
  t.same(cut.repaired, { k: 'abc' });
  t.ok(cut.metadata.syntax_repairs.some((d) => d.type === 'closed_string'), 'reported as a string cut off');
  t.equal(repair('["abcdef",]').metadata.was_repaired, true);
  const cutInArray = repair('["abc');
  t.same(cutInArray.repaired, ['abc']);
  t.same(cutInArray.metadata.syntax_repairs.map((d) => d.type).sort(), ['closed_array_bracket', 'closed_string']);
  t.equal(repair('[1, 2, 3, 4, 5, 6,]').metadata.was_repaired, true);
  t.same(repair('[1, 2').repaired, [1, 2]);
  t.equal(repair('{"name": "Ada", "role": 1,}').metadata.was_repaired, true);
  t.same(repair('{name').repaired, {});

  // A stream's windows are short after a long one: the scanner's tree is read from each.
  const scanner = new Scanner();
  scanner.feed('{"long": "' + 'x'.repeat(200) + '", "n": [1, 2, 3], ', false);
  scanner.feed('"b": "ab', false);
  t.same(scanner.roots[0], { long: 'x'.repeat(200), n: [1, 2, 3] }, 'the cut string is not taken as ended');
  t.equal(scanner.inString, true);
  scanner.feed('c", "d": 4}', true);
  t.same(scanner.roots[0], { long: 'x'.repeat(200), n: [1, 2, 3], b: 'abc', d: 4 });
});

t.test('a NUL in the text stops the fast lane as it did, in one piece and in pieces', async (t) => {
  for (const text of ['{"a": "x\u0000y"}', '{"a": 1\u0000}', '[\u0000]', '{"a\u0000": 2}', '{a: 1, b: "\u0000"']) {
    const whole = new Scanner();
    whole.feed(text, true);
    const pieces = new Scanner();
    for (let k = 0; k < text.length; k += 2) pieces.feed(text.slice(k, k + 2), k + 2 >= text.length);
    t.ok(repair(text).success, JSON.stringify(text));
    t.same(pieces.roots, whole.roots, `${JSON.stringify(text)} fed 2 characters at a time`);
  }
});

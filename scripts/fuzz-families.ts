// Input families for fuzzing the engine. Each builds a text of about `bytes` UTF-16 code
// units from a seeded random source, so one seed gives the same text on every run and a family can
// be grown 8x to check that repair time grows linearly. Shared by test/hardening/engine-fuzz.test.ts
// (small sizes, fixed seed) and scripts/fuzz.ts (larger budgets, timing).
import { MalformedEmitter } from '../bench/engine/emit-malformed.js';
import type { Random } from '../support/random.js';

export interface FuzzFamily {
  readonly name: string;
  /** Broken text of the family, about `bytes` long. */
  broken(random: Random, bytes: number): string;
  /** Valid JSON of the family (must come back unchanged), or null when the family has none. */
  valid: ((random: Random, bytes: number) => string) | null;
}

const KEY_WORDS = ['id', 'name', 'a', 'b', 'value', 'items', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'key with space', 'é', '😀'];
const SCALARS = ['1', '-2.5e3', 'true', 'false', 'null', 'True', 'None', 'NaN', '"s"', "'q'", 'tru', '.5', '1e', '0x1F', 'undefined'];

/** A JSON-safe key, or one of the names that must stay plain data. */
function keyName(random: Random, i: number): string {
  return random.chance(0.2) ? random.pick(KEY_WORDS) : `k${i}`;
}

function spellKey(random: Random, name: string): string {
  const roll = random.int(4);
  if (roll === 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return name;
  if (roll === 1) return `'${name.replace(/'/g, "\\'")}'`;
  return JSON.stringify(name);
}

/** The engine refuses input nested deeper than 1000 levels; most texts stay under, some go over. */
function depthLimit(random: Random): number {
  return random.chance(0.1) ? 900 + random.int(300) : 20 + random.int(960);
}

/**
 * Arrays and objects that zigzag between shallow and deep (a random depth limit, sometimes past the
 * engine's 1000), spelled badly: keys bare or single-quoted, commas doubled, missing (before a line
 * break) or trailing, odd literals, comments, and usually cut off before the closing brackets.
 */
function deepBroken(random: Random, bytes: number): string {
  const parts: string[] = ['['];
  const closers: string[] = [']'];
  const limit = depthLimit(random);
  let length = 1;
  while (length < bytes) {
    let piece: string;
    const roll = random.next();
    // A comma goes missing only before a line break, where the reading is unambiguous.
    const separator = random.pick([',', ',', ',', ',', ',,', '\n', ', ', ',\n', ' //c\n', '/*c*/,']);
    const key = closers[closers.length - 1] === '}' ? random.pick(['"k":', 'k:', "'k':", '"k" : ']) : '';
    if (roll < 0.4 && closers.length < limit) {
      const array = random.chance(0.5);
      piece = key + (array ? '[' : '{');
      closers.push(array ? ']' : '}');
    } else if (roll < 0.6 && closers.length > 1) {
      piece = (random.chance(0.2) ? ',' : '') + closers.pop()! + separator;
    } else {
      piece = key + random.pick(SCALARS) + separator;
    }
    parts.push(piece);
    length += piece.length;
  }
  if (random.chance(0.2)) while (closers.length > 0) parts.push(closers.pop()!);
  return parts.join('');
}

/** Valid arrays and objects that zigzag between shallow and deep (at most 1000 levels). */
function deepValid(random: Random, bytes: number): string {
  const parts: string[] = ['['];
  const stack: string[] = [']'];
  const limit = Math.min(depthLimit(random), 999);
  let length = 1;
  let needComma = false;
  while (length < bytes) {
    const comma = needComma ? ',' : '';
    const key = stack[stack.length - 1] === '}' ? `"k${random.int(40)}":` : '';
    const roll = random.next();
    let piece: string;
    if (roll < 0.4 && stack.length < limit) {
      const array = random.chance(0.5);
      piece = comma + key + (array ? '[' : '{');
      stack.push(array ? ']' : '}');
      needComma = false;
    } else if (roll < 0.6 && stack.length > 1) {
      piece = stack.pop()!;
      needComma = true;
    } else {
      piece = comma + key + random.pick(['1', '-2.5e3', 'true', 'false', 'null', '"s"', '"\\u00e9\\n"', '{}', '[]']);
      needComma = true;
    }
    parts.push(piece);
    length += piece.length;
  }
  while (stack.length > 0) parts.push(stack.pop()!);
  return parts.join('');
}

const STRING_PIECES = ['plain text ', '\\n', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', 'é', '😀', '\ud800', '\t', '\n', "'", '"', '\\', '\\u12', '\\x41', '{', '}', '[', ',', '\u0000', '\u2028'];

function longString(random: Random, bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const piece = random.chance(0.6) ? 'abcdefghij klmnopqrst '.repeat(1 + random.int(8)) : random.pick(STRING_PIECES);
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('');
}

/** A few members whose values are long strings, each quoted oddly or left unterminated. */
function stringsBroken(random: Random, bytes: number): string {
  const members = 1 + random.int(4);
  const parts = ['{'];
  for (let i = 0; i < members; i++) {
    const quote = random.pick(['"', '"', "'", '“', '`']);
    const close = random.chance(0.85) ? (quote === '“' ? '”' : quote) : '';
    parts.push(`${spellKey(random, keyName(random, i))}: ${quote}${longString(random, bytes / members)}${close}`);
    if (i < members - 1) parts.push(random.chance(0.8) ? ', ' : '\n');
  }
  if (random.chance(0.5)) parts.push('}');
  return parts.join('');
}

function stringsValid(random: Random, bytes: number): string {
  const value: Record<string, string> = {};
  const members = 1 + random.int(4);
  for (let i = 0; i < members; i++) {
    Object.defineProperty(value, keyName(random, i), { value: longString(random, bytes / members), enumerable: true, configurable: true, writable: true });
  }
  return JSON.stringify(value);
}

/** One flat object (sometimes one level of sub-objects) with many keys, duplicates and odd names. */
function keysBroken(random: Random, bytes: number): string {
  const parts = ['{'];
  let length = 1;
  for (let i = 0; length < bytes; i++) {
    const nested = random.chance(0.05) ? `{${spellKey(random, keyName(random, i))}: 1,}` : random.pick(SCALARS);
    const separator = random.pick([', ', ', ', ',\n', '\n', ',,', ', // note\n']);
    const piece = `${spellKey(random, random.chance(0.1) ? `k${random.int(i + 1)}` : keyName(random, i))}: ${nested}${separator}`;
    parts.push(piece);
    length += piece.length;
  }
  if (random.chance(0.7)) parts.push('}');
  return parts.join('');
}

function keysValid(random: Random, bytes: number): string {
  const parts = ['{'];
  let length = 1;
  for (let i = 0; length < bytes; i++) {
    const piece = `${i === 0 ? '' : ','}${JSON.stringify(keyName(random, i))}:${random.pick(['1', '"v"', 'null', 'true', '[1,2]', '{"x":{}}'])}`;
    parts.push(piece);
    length += piece.length;
  }
  parts.push('}');
  // Duplicate keys in valid JSON keep the last value, as JSON.parse does.
  return parts.join('');
}

/** Records of mixed values, the shape of an LLM's tool output. */
function recordsValue(random: Random, bytes: number): unknown[] {
  const rows: unknown[] = [];
  for (let length = 0; length < bytes; length += 120) {
    rows.push({
      id: random.int(1e6),
      name: `item ${random.int(1000)} "quoted" 'apostrophe'`,
      tags: ['a', 'b', random.pick(['x', 'y', 'é'])],
      price: random.int(10000) / 100,
      active: random.chance(0.5),
      note: random.chance(0.3) ? null : { text: 'multi\nline', depth: [1, [2, [3]]] },
    });
  }
  return rows;
}

/** Every repair the emitter knows, at full rate: each line needs fixing. */
function repairsBroken(random: Random, bytes: number): string {
  const emitter = new MalformedEmitter(random, {
    bareKeys: 1, singleQuotes: 0.7, trailingCommas: 0.8, lineComments: 0.3, blockComments: 0.3, missingCommas: 0.5, pythonLiterals: true,
  });
  emitter.value(recordsValue(random, bytes / 2), '');
  const text = emitter.text();
  // Sometimes wrapped in prose and a fence, sometimes cut off.
  if (random.chance(0.3)) return `Here is the JSON you asked for:\n\`\`\`json\n${text}\n\`\`\`\nHope this helps!`;
  return random.chance(0.3) ? text.slice(0, Math.max(1, text.length - random.int(200))) : text;
}

function repairsValid(random: Random, bytes: number): string {
  return JSON.stringify(recordsValue(random, bytes / 2), null, random.chance(0.5) ? 2 : undefined);
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Random bytes read as UTF-8: invalid sequences become U+FFFD, as the server reads bodies. */
function randomBytes(random: Random, bytes: number): string {
  const buffer = new Uint8Array(bytes);
  // Sometimes inside a container, so the scanner reads on instead of stopping after a first value.
  const prefix = random.chance(0.3) ? Buffer.from('{"a": [') : Buffer.alloc(0);
  buffer.set(prefix.subarray(0, bytes), 0);
  // Half the time biased towards JSON's punctuation, so the scanner goes deeper than the first byte.
  const biased = random.chance(0.5);
  const punctuation = Buffer.from('{}[]",:\'\\/*#\n 0123456789tfnue-.');
  for (let i = prefix.length; i < bytes; i++) buffer[i] = biased && random.chance(0.6) ? punctuation[random.int(punctuation.length)]! : random.int(256);
  return decoder.decode(buffer);
}

export const FAMILIES: readonly FuzzFamily[] = [
  { name: 'deep-nesting', broken: deepBroken, valid: deepValid },
  { name: 'long-strings', broken: stringsBroken, valid: stringsValid },
  { name: 'many-keys', broken: keysBroken, valid: keysValid },
  { name: 'many-repairs', broken: repairsBroken, valid: repairsValid },
  { name: 'random-bytes', broken: randomBytes, valid: null },
];

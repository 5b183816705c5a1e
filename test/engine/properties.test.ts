// Property tests of the engine's contract, with a fixed seed so a failure reproduces.
// Every generated input goes through checkContract(): repair never throws; a success is a plain JSON
// value that survives JSON.stringify/JSON.parse and whose repair report is well formed; a failure is
// the spec's failure shape; and repairing the serialized result again changes nothing.
import fc from 'fast-check';
import t from 'tap';
import { MalformedEmitter, type MalformedStyle } from '../../bench/engine/emit-malformed.js';
import { firstDifference, jsonEqual } from '../../support/json-equal.js';
import { createRandom } from '../../support/random.js';
import { REPAIR_KINDS, createStream, repair } from '../../engine/index.js';
import type { Confidence, RepairResponse } from '../../engine/index.js';
import { plainJsonDepth, SERIALIZABLE_DEPTH } from '../../scripts/fuzz-check.js';

// FC_SEED explores other inputs; the default keeps every run identical.
const SEED = Number(process.env.FC_SEED ?? 20240611);
const RANK: Record<Confidence, number> = { high: 0, medium: 1, low: 2 };
/** What is wrong with the response to `text`, or null. */
function contractViolation(text: string, response: RepairResponse, checkIdempotence = true): string | null {
  const m = response.metadata;
  if (!response.success) {
    if (response.repaired !== null) return 'failure with a non-null value';
    if (m.errors.length === 0) return 'failure without errors';
    if (m.confidence !== 'low' || m.was_repaired || m.output_valid_json) return 'failure metadata not low / unrepaired / invalid';
    return null;
  }
  if (m.errors.length > 0) return 'success with errors';
  if (!m.output_valid_json) return 'success with output_valid_json false';
  const depth = plainJsonDepth(response.repaired);
  if (typeof depth === 'string') return depth;
  if (m.was_repaired !== m.repairs_applied.length > 0) return 'was_repaired disagrees with repairs_applied';
  let worst: Confidence = m.warnings.length > 0 ? 'medium' : 'high';
  for (const detail of m.syntax_repairs) {
    const kind = (REPAIR_KINDS as Record<string, { confidence: Confidence }>)[detail.type];
    if (kind === undefined) return `unknown repair type ${detail.type}`;
    // A site that chose or guessed reports its kind lower (repair-log.ts doubt), never higher.
    if (RANK[detail.confidence] < RANK[kind.confidence]) return `${detail.type} reported with confidence ${detail.confidence}`;
    if (detail.safe !== (detail.confidence === 'high')) return `${detail.type} safe ${detail.safe} at ${detail.confidence}`;
    if (detail.position !== undefined && !(Number.isInteger(detail.position) && detail.position >= 0 && detail.position <= text.length)) {
      return `${detail.type} at position ${detail.position} outside the input (length ${text.length})`;
    }
    if (detail.count !== undefined && !(Number.isInteger(detail.count) && detail.count >= 1)) return `${detail.type} count ${detail.count}`;
    if (RANK[detail.confidence] > RANK[worst]) worst = detail.confidence;
  }
  if (m.confidence !== worst) return `confidence ${m.confidence}, worst of its parts is ${worst}`;
  if (depth > SERIALIZABLE_DEPTH) return null;
  const serialized = JSON.stringify(response.repaired);
  const at = firstDifference(JSON.parse(serialized), response.repaired);
  if (at !== null) return `value changes when serialized, at "${at}"`;
  if (!checkIdempotence) return null;
  const again = repair(serialized);
  if (!again.success || again.metadata.was_repaired || again.metadata.syntax_repairs.length > 0) {
    return `repairing our own output ${serialized.slice(0, 80)} reports ${JSON.stringify(again.metadata.syntax_repairs.map((r) => r.type))}`;
  }
  if (!jsonEqual(again.repaired, response.repaired)) return 'repairing our own output changes the value';
  return null;
}

function checkContract(text: string): void {
  let response: RepairResponse;
  try {
    response = repair(text);
  } catch (error) {
    throw new Error(`repair threw ${String(error)} for ${JSON.stringify(text)}`);
  }
  const problem = contractViolation(text, response);
  if (problem !== null) throw new Error(`${problem} for ${JSON.stringify(text)}`);
}

const params = (numRuns: number) => ({ seed: SEED, numRuns });

// Any UTF-16 code unit, lone surrogates included.
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const anyText = fc.string({ unit: codeUnit, maxLength: 60 });
// The characters and words the scanner branches on, so random text reaches its repair paths.
const TOKENS = ['{', '}', '[', ']', ',', ':', '"', "'", '`', '“', '”', '‘', '’', '\\', '\\u', '\\u12', '/', '//', '/*', '*/', '#',
  '\n', ' ', '\t', '```', '```json', 'tru', 'true', 'True', 'None', 'null', 'NaN', '-Infinity', 'undefined', '...', '+',
  '1', '-', '.', '.5', '5.', 'e', '1e', '0x1', 'a', 'key', 'Here\'s', 'callback(', ')', ';', '\u00a0', '\u2028', '\ud800', '😀'];
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((parts) => parts.join(''));
const validJson = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 4, stringUnit: codeUnit }).map((v) => JSON.stringify(v, null, 2)),
);
const MUTATION_CHARS = [',', '"', "'", '[', ']', '{', '}', ':', '\\', '/', '*', '#', '\n', 'a', '1', '.', '-', '`', '“'];
const mutation = fc.record({ at: fc.nat(), remove: fc.boolean(), insert: fc.constantFrom(...MUTATION_CHARS) });

function mutate(text: string, edits: readonly { at: number; remove: boolean; insert: string }[]): string {
  let out = text;
  for (const { at, remove, insert } of edits) {
    const i = out.length === 0 ? 0 : at % (out.length + 1);
    out = remove ? out.slice(0, i) + out.slice(i + 1) : out.slice(0, i) + insert + out.slice(i);
  }
  return out;
}

t.test('any UTF-16 text (lone surrogates included) keeps the contract', async (t) => {
  fc.assert(fc.property(anyText, (text) => checkContract(text)), params(400));
  t.pass('400 generated strings');
});

t.test('text made of JSON-ish tokens keeps the contract', async (t) => {
  fc.assert(fc.property(tokenSoup, (text) => checkContract(text)), params(1500));
  t.pass('1500 generated token strings');
});

t.test('valid JSON comes back unchanged: same value, was_repaired false, high, no repairs', async (t) => {
  fc.assert(
    fc.property(validJson, (text) => {
      const response = repair(text);
      const m = response.metadata;
      if (!response.success) throw new Error(`valid JSON failed: ${JSON.stringify(text)}`);
      const at = firstDifference(response.repaired, JSON.parse(text));
      if (at !== null) throw new Error(`value differs at "${at}" for ${JSON.stringify(text)}`);
      if (m.was_repaired || m.confidence !== 'high' || m.syntax_repairs.length > 0 || m.warnings.length > 0) {
        throw new Error(`valid JSON reported as repaired (${m.confidence}, ${JSON.stringify(m.syntax_repairs)}): ${JSON.stringify(text)}`);
      }
    }),
    params(300),
  );
  t.pass('300 valid documents');
});

t.test('any string value in a broken document reads as JSON.parse reads it, batch or streamed', async (t) => {
  // The bare key and trailing comma keep the input off the JSON.parse path: the scanner (its fast
  // lane for escaped strings, or scan-string.ts) must decode every escape JSON.stringify writes.
  const jsonText = fc.string({ unit: codeUnit, maxLength: 40 }).map((v) => [v, `{k: ${JSON.stringify(v)}, n: 1,}`] as const);
  fc.assert(
    fc.property(jsonText, fc.integer({ min: 1, max: 9 }), ([value, text], step) => {
      const response = repair(text);
      if (!response.success || (response.repaired as { k: unknown }).k !== value) {
        throw new Error(`${JSON.stringify(text)} gave ${JSON.stringify(response.repaired)}`);
      }
      const stream = createStream({});
      for (let i = 0; i < text.length; i += step) stream.push(text.slice(i, i + step));
      const streamed = stream.finalize();
      if (!jsonEqual(streamed.repaired, response.repaired)) throw new Error(`streamed in ${step}s: ${JSON.stringify(streamed.repaired)}`);
    }),
    params(600),
  );
  t.pass('600 generated strings');
});

t.test('a valid document cut at every position keeps the contract', async (t) => {
  let cuts = 0;
  fc.assert(
    fc.property(validJson, (text) => {
      for (let i = 0; i <= text.length; i++, cuts++) checkContract(text.slice(0, i));
    }),
    params(60),
  );
  t.ok(cuts > 0, `${cuts} cuts`);
});

t.test('a valid document with characters inserted and deleted keeps the contract', async (t) => {
  fc.assert(
    fc.property(validJson, fc.array(mutation, { minLength: 1, maxLength: 6 }), (text, edits) => checkContract(mutate(text, edits))),
    params(1000),
  );
  t.pass('1000 mutated documents');
});

// Spellings with exactly one reading (emit-malformed.ts): the repair must give back the value itself.
const style: fc.Arbitrary<MalformedStyle> = fc.record({
  bareKeys: fc.constantFrom(0, 0.5, 1),
  singleQuotes: fc.constantFrom(0, 0.5, 1),
  trailingCommas: fc.constantFrom(0, 0.5, 1),
  lineComments: fc.constantFrom(0, 0.3),
  blockComments: fc.constantFrom(0, 0.3),
  missingCommas: fc.constantFrom(0, 0.3),
  pythonLiterals: fc.boolean(),
});

t.test('a value spelled with unquoted keys, single quotes, comments, trailing/missing commas comes back', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), style, fc.nat(), (value, spelling, seed) => {
      const emitter = new MalformedEmitter(createRandom(seed), spelling);
      emitter.value(value, '');
      const text = emitter.text();
      const response = repair(text);
      if (!response.success) throw new Error(`failed on ${JSON.stringify(text)}`);
      const at = firstDifference(response.repaired, value);
      if (at !== null) throw new Error(`value differs at "${at}" for ${JSON.stringify(text)}: ${JSON.stringify(response.repaired)}`);
      const problem = contractViolation(text, response);
      if (problem !== null) throw new Error(`${problem} for ${JSON.stringify(text)}`);
    }),
    params(500),
  );
  t.pass('500 spellings');
});

t.test('keys named like Object.prototype members stay plain own members', async (t) => {
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    for (const text of [`{${key}: 1, b: [2,],}`, `{'${key}': 1, "b": [2]`, `{"${key}": {"x": 1}} trailing`]) {
      const response = repair(text);
      t.ok(response.success, `${text} repaired`);
      const value = response.repaired as Record<string, unknown>;
      t.equal(Object.getPrototypeOf(value), Object.prototype, `${text}: prototype untouched`);
      t.ok(Object.prototype.hasOwnProperty.call(value, key), `${text}: ${key} is an own member`);
      t.equal(contractViolation(text, response), null, `${text}: contract`);
    }
  }
});

t.test('deeply nested and long input neither throws nor overflows', async (t) => {
  const inputs: [string, string][] = [
    ['1e6 x "["', '['.repeat(1_000_000)],
    ['1e6 x "]"', ']'.repeat(1_000_000)],
    ['2e5 x {"a":', '{"a":'.repeat(200_000)],
    ['2e5 x [{"a":[', '[{"a":['.repeat(200_000)],
    ['1e5 x {a:[', '{a:['.repeat(100_000)],
    ['valid 1e5 deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ];
  for (const [name, text] of inputs) {
    let response: RepairResponse | undefined;
    t.doesNotThrow(() => {
      response = repair(text);
    }, name);
    if (response !== undefined) t.equal(contractViolation(text, response, false), null, `${name}: contract`);
  }
});

t.test('valid JSON whose number JSON.parse reads as Infinity is not taken as it is', async (t) => {
  // a 16-digit mantissa takes e+298 past a double's range; so does e999
  for (const text of ['[4185575733472519e+298]', '{"a": 1e999}', '[-2e400]']) {
    const r = repair(text);
    t.equal(contractViolation(text, r), null, text);
    t.not(r.metadata.confidence, 'high', `${text}: the number changed`);
  }
  // large but finite: valid as written
  t.equal(repair('[1.5e300, 1e-400, 17976931348623157e292]').metadata.was_repaired, false);
  // wherever the number stands (a member, an element, pretty-printed, the root), among hex text
  // that looks like an exponent (`"9e186e3c"`, `"3e318"`): only the number is taken apart
  fc.assert(fc.property(fc.constantFrom('1e999', '-2E+400', '4185575733472519e+298', '12.5e1000'), fc.constantFrom(0, 2), fc.nat(3),
    (big, indent, place) => {
      const at = '@';
      const value = { id: '3e318e9d-c741', hash: 'b1d09e186e3c', n: place === 0 ? at : 1, list: place === 1 ? [at, 2] : place === 2 ? [1, at] : [1, 2] };
      const whole = place === 3 ? big : JSON.stringify(value, null, indent).replace(JSON.stringify(at), big);
      const r = repair(whole);
      return r.metadata.syntax_repairs.some((d) => d.type === 'replaced_nan') && r.metadata.confidence !== 'high';
    }), { seed: 20261129, numRuns: 60 });
  // hex text alone is valid JSON, taken as it is
  t.equal(repair(JSON.stringify({ id: '3e318e9d-c741', hash: 'b1d09e186e3c', n: '5e999' })).metadata.was_repaired, false);
});

t.test('valid JSON whose integer part is too long for a double is not taken as it is', async (t) => {
  // No exponent of three digits: 309 digits or more, or 210 and more with a two-digit exponent,
  // pass a double's range; wherever the number stands, with digits in strings and fractions around
  fc.assert(fc.property(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 99 }), fc.boolean(), fc.boolean(), fc.nat(2), fc.constantFrom(0, 2),
    (extra, exponent, negative, fraction, place, indent) => {
      const digits = '7' + '3'.repeat(extra);
      const big = `${negative ? '-' : ''}${digits}${fraction ? '.25' : ''}${exponent > 0 ? `e${exponent}` : ''}`;
      const at = '@';
      const value = { note: '1'.repeat(400), ratio: 0.1234567890123456, n: place === 0 ? at : 1, list: place === 1 ? [at, 2] : [1, place === 2 ? at : 2] };
      const whole = JSON.stringify(value, null, indent).replace(JSON.stringify(at), big);
      const overflows = !Number.isFinite(Number(big));
      const r = repair(whole);
      const replaced = r.metadata.syntax_repairs.some((d) => d.type === 'replaced_nan');
      return overflows ? replaced && r.metadata.confidence !== 'high' : !r.metadata.was_repaired && r.metadata.confidence === 'high';
    }), { seed: 20261129, numRuns: 300 });
  // a long run of digits in a string or after a point is no number: taken as it is
  t.equal(repair(`["${'9'.repeat(500)}", 0.${'9'.repeat(500)}, "a${'9'.repeat(500)}"]`).metadata.was_repaired, false);
});

t.test('a single-quoted string with escapes reads as JSON reads them, and `\\\'` as a quote', async (t) => {
  // written: what the model wrote between the quotes; meant: the string a reader takes from it
  const piece = fc.constantFrom<[string, string]>(['a', 'a'], [' ', ' '], ['é', 'é'], ['"', '"'], ["\\'", "'"], ['\\"', '"'],
    ['\\n', '\n'], ['\\t', '\t'], ['\\\\', '\\'], ['\\/', '/'], ['\\u00e9', 'é'], ['\\r', '\r']);
  fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), fc.array(piece, { maxLength: 4 }), (a, b) => {
    const written = (p: [string, string][]): string => p.map((x) => x[0]).join('');
    const meant = (p: [string, string][]): string => p.map((x) => x[1]).join('');
    const r = repair(`{'a': '${written(a)}', 'b': ['${written(b)}', 1]}`);
    return r.success && r.metadata.confidence === 'high' &&
      jsonEqual(r.repaired, { a: meant(a), b: [meant(b), 1] }) &&
      r.metadata.syntax_repairs.every((d) => d.type === 'converted_single_quotes');
  }), { seed: 20261129, numRuns: 400 });
  t.pass('400 single-quoted strings');
});

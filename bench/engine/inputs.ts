// Deterministic benchmark inputs: a ~1 MB document (valid and malformed spellings of the same value)
// and a ~1 KB language-model reply. Each malformed input comes with the value a correct repair must
// produce, so the benchmark can refuse to time a repair that gives the wrong answer.
import { createRandom, type Random } from '../../support/random.js';
import { MalformedEmitter, type MalformedStyle } from './emit-malformed.js';

export const SEED = 20_240_611;

// Words chosen to trip a careless scanner: comment markers, quotes, literals, fences, brackets and
// escapes inside strings must all survive a repair untouched.
const WORDS = [
  'alpha', 'beta', 'gamma', 'delta', 'omega', 'engine', 'report', 'value', 'status', 'ready',
  'café', 'naïve', 'Zürich', '日本語', 'данные', 'emoji 🚀', 'it\'s', 'say "hi"', 'C:\\temp',
  'line\nbreak', 'tab\there', 'a/b', '// not a comment', '/* nor this */', 'NaN', 'True', 'None',
  'null,', '{brace}', '[bracket]', "'quoted'", '#hash', '```json', 'x: 1', 'ctl\u0001', 'é\u2028',
];
const SUMMARY = 'The quarterly report covers every record above and ends with this plain sentence about them all';

function words(random: Random, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(random.pick(WORDS));
  return out.join(' ');
}

function hex(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += '0123456789abcdef'[random.int(16)];
  return out;
}

function record(random: Random, id: number): Record<string, unknown> {
  const history = [];
  for (let i = random.int(4); i >= 0; i--) {
    history.push({ at: `2024-0${1 + random.int(9)}-1${random.int(10)}T0${random.int(10)}:30:00Z`, delta: random.int(2000) - 1000, ok: random.chance(0.7) });
  }
  return {
    id,
    uuid: `${hex(random, 8)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 12)}`,
    name: words(random, 2),
    'display name': words(random, 3),
    active: random.chance(0.5),
    score: Math.round((random.next() * 200 - 100) * 1e4) / 1e4,
    ratio: random.chance(0.2) ? 1.5e-7 * (1 + random.int(9)) : random.next(),
    count: random.int(100_000),
    tags: [words(random, 1), words(random, 1), words(random, 1)].slice(0, 1 + random.int(3)),
    note: random.chance(0.2) ? null : words(random, 4 + random.int(8)),
    location: { lat: random.next() * 180 - 90, lon: random.next() * 360 - 180, label: words(random, 2) },
    history,
    matrix: [[random.int(10), random.int(10), random.int(10)], [random.int(10), random.int(10), random.int(10)]],
  };
}

/** A value whose pretty-printed JSON is about `targetBytes` long (UTF-8); `summary` is its last member. */
export function generateDocument(targetBytes: number, seed = SEED): Record<string, unknown> {
  const random = createRandom(seed);
  const records: unknown[] = [];
  let bytes = 200;
  while (bytes < targetBytes) {
    const next = record(random, records.length + 1);
    records.push(next);
    // Wrapped as in the document, so the indentation of its depth is counted too.
    bytes += Buffer.byteLength(JSON.stringify({ records: [next] }, null, 2)) - 20;
  }
  return { meta: { generator: 'jsonmend bench', seed, description: words(random, 6) }, records, summary: SUMMARY };
}

export interface MalformedInput {
  /** The text to repair. */
  text: string;
  /** The value a correct repair of `text` gives. */
  expected: unknown;
}

export interface MalformedDocument extends MalformedInput {
  /** The same malformed spelling, not truncated: a correct repair gives back the original value. */
  complete: MalformedInput;
}

const DOCUMENT_STYLE: MalformedStyle = {
  bareKeys: 0.5, singleQuotes: 0.3, trailingCommas: 0.3, lineComments: 0.03, blockComments: 0.02,
  missingCommas: 0.03, pythonLiterals: false,
};

/**
 * The document spelled with unquoted keys, single quotes, trailing commas, comments and missing
 * commas, then cut off inside its last string (`summary`), as a model stopped mid-answer would be.
 */
export function malformDocument(value: Record<string, unknown>, seed = SEED): MalformedDocument {
  const emitter = new MalformedEmitter(createRandom(seed ^ 0x5eed), DOCUMENT_STYLE);
  emitter.write('{');
  const keys = Object.keys(value).filter((key) => key !== 'summary');
  for (const key of keys) emitter.member(key, value[key], '  ', false);
  emitter.write('\n  "summary": ');
  const summaryStart = emitter.offset + 1;
  emitter.write(JSON.stringify(SUMMARY));
  emitter.write('\n}');
  const complete = emitter.text();
  const kept = Math.floor(SUMMARY.length * 0.6);
  return {
    text: complete.slice(0, summaryStart + kept),
    expected: { ...value, summary: SUMMARY.slice(0, kept) },
    complete: { text: complete, expected: value },
  };
}

export interface LlmReply extends MalformedInput {
  /** The reply from its code fence on: jsonrepair throws on the prose before it. */
  fromFence: string;
  /** The value with a schema: the member the reply is cut inside (CUT_MEMBER) dropped (docs/schema.md "Cut replies"). */
  expectedWithSchema: Record<string, unknown>;
}

/** The member the reply is cut inside; without a schema its prefix is kept. */
export const CUT_MEMBER = 'bio';

const REPLY_STYLE: MalformedStyle = {
  bareKeys: 0.7, singleQuotes: 0.4, trailingCommas: 0.5, lineComments: 0, blockComments: 0,
  missingCommas: 0, pythonLiterals: true,
};
const PROSE = "Sure! Here's the JSON you asked for \u2014 I've filled in every field I could find:\n\n";
const BIO = 'She wrote what many call the first published algorithm, and she saw that the engine could compose music';

/**
 * A ~1 KB reply: prose, a ```json fence, unquoted keys, True/None, trailing commas, cut mid-string.
 * `projects` rows in its array (5): more make the same reply longer, for a size sweep.
 */
export function llmReply(seed = SEED, projects = 5): LlmReply {
  const random = createRandom(seed ^ 0x11a);
  const value: Record<string, unknown> = {
    name: 'Ada Lovelace',
    role: 'analyst',
    active: true,
    verified: false,
    manager: null,
    skills: ['math', 'poetry', 'engines'],
    projects: Array.from({ length: projects }, (_, i) => ({ title: words(random, 3), year: 1840 + i, pages: 10 + random.int(90), public: random.chance(0.5) })),
    address: { city: 'London', zip: 'W1', note: null },
    bio: BIO,
  };
  const emitter = new MalformedEmitter(random, REPLY_STYLE);
  emitter.write(PROSE);
  const fence = emitter.offset;
  emitter.write('```json\n{');
  const { [CUT_MEMBER]: _cut, ...whole } = value;
  for (const key of Object.keys(whole)) emitter.member(key, value[key], '  ', false);
  emitter.write(`\n  ${CUT_MEMBER}: "`);
  const kept = Math.floor(BIO.length * 0.7);
  emitter.write(BIO.slice(0, kept));
  const text = emitter.text();
  return { text, expected: { ...value, [CUT_MEMBER]: BIO.slice(0, kept) }, fromFence: text.slice(fence), expectedWithSchema: whole };
}

/**
 * `count` versions of the 1 KB reply, each with names of its own (`name` → `name_3`): read in turn,
 * no reply has the shape of the one before, so the key memo (engine/scanner/key-memo.ts) carried
 * from the last reply never matches — the cost of a reply whose shape this thread has not just seen.
 */
export function replyShapes(count: number): string[] {
  const { text } = llmReply();
  return Array.from({ length: count }, (_, v) =>
    text.replace(/(^|[\s{,])(["']?)([A-Za-z_]\w*)\2(\s*:)/gm, (_m, before: string, quote: string, name: string, colon: string) => `${before}${quote}${name}_${v}${quote}${colon}`));
}

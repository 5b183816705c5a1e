// Hostile input shapes for the engine's linear-cost property (every input costs time linear in its
// size): each shape repeats a unit that stresses one part of the engine — many roots, many fences,
// many candidates, deep nesting, quotes, comments, escapes — until the text reaches a size. The
// test (test/engine/linear-cost.test.ts) and the bench (bench/engine/hostile.ts) share them.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface HostileShape {
  name: string;
  /** Text of about `size` UTF-16 code units. */
  make(size: number): string;
}

/** `unit` repeated until the text reaches `size` characters, between an optional head and tail. */
function repeat(unit: string, head = '', tail = ''): (size: number) => string {
  return (size) => head + unit.repeat(Math.max(1, Math.ceil((size - head.length - tail.length) / unit.length))) + tail;
}

/** `open` n times then `close` n times: nesting as deep as the size allows. */
function nested(open: string, inner: string, close: string): (size: number) => string {
  return (size) => {
    const n = Math.max(1, Math.floor((size - inner.length) / (open.length + close.length)));
    return open.repeat(n) + inner + close.repeat(n);
  };
}

export const HOSTILE_SHAPES: readonly HostileShape[] = [
  { name: 'roots-unquoted', make: repeat('{a:w}') },
  { name: 'roots-bare-items', make: (size) => '[x y]' + '[w]'.repeat(Math.ceil(size / 3)) },
  { name: 'roots-valid', make: repeat('{"a":1}') },
  { name: 'roots-newline', make: repeat('{"a": "b"}\n') },
  { name: 'roots-empty', make: repeat('{}[]') },
  { name: 'roots-scalars', make: repeat('1 ') },
  { name: 'roots-prose-between', make: repeat('word {a:1} ') },
  { name: 'fences-comment-open', make: repeat('```\n//{\n```\n') },
  { name: 'fences-json', make: repeat('```json\n{"a": 1}\n```\n') },
  { name: 'fences-unclosed', make: repeat('```json\n{') },
  { name: 'fences-prose', make: repeat('Here:\n```\n[1, x]\n```\nMore text.\n') },
  { name: 'candidates-open-braces', make: repeat('{') },
  { name: 'candidates-open-brackets', make: repeat('[') },
  { name: 'candidates-brace-prose', make: repeat('a { b ') },
  { name: 'candidates-close-noise', make: repeat('}]') },
  { name: 'nest-arrays', make: nested('[', '1', ']') },
  { name: 'nest-objects', make: nested('{"a":', '1', '}') },
  { name: 'nest-unclosed', make: (size) => '{"a":['.repeat(Math.ceil(size / 6)) },
  { name: 'quotes-everywhere', make: repeat('"') },
  { name: 'quotes-single', make: repeat("'") },
  { name: 'quotes-inner', make: (size) => '["' + 'a "b" c '.repeat(Math.ceil(size / 9)) + '"]' },
  { name: 'string-unclosed', make: (size) => '{"a": "' + 'x'.repeat(size) },
  { name: 'empty-containers', make: (size) => '[' + '{},[],'.repeat(Math.ceil(size / 6)) + ']' },
  { name: 'empty-objects-open', make: (size) => '[' + '{},'.repeat(Math.ceil(size / 3)) },
  { name: 'commas', make: (size) => '[' + ','.repeat(size) + ']' },
  { name: 'colons', make: (size) => '{"a"' + ':'.repeat(size) + '1}' },
  { name: 'comma-colon-mix', make: repeat(',:') },
  { name: 'long-key', make: (size) => '{' + 'k'.repeat(size) + ': 1}' },
  { name: 'many-keys-unquoted', make: (size) => '{' + Array.from({ length: Math.ceil(size / 8) }, (_, i) => `k${i}: w,`).join('') + '}' },
  { name: 'comments-line', make: (size) => '[' + '// c\n1,'.repeat(Math.ceil(size / 7)) + '1]' },
  { name: 'comments-block', make: (size) => '{' + '/* c */'.repeat(Math.ceil(size / 7)) + '}' },
  { name: 'comments-unclosed', make: (size) => '{"a": 1 /*' + ' x'.repeat(size / 2) },
  { name: 'backslashes', make: (size) => '["' + '\\'.repeat(size) + '"]' },
  { name: 'escaped-document', make: (size) => '{\\"a\\": \\"' + 'b'.repeat(size) + '\\"}' },
  { name: 'unicode', make: (size) => '{"é": "' + 'ü€😀'.repeat(Math.ceil(size / 4)) + '"}' },
  { name: 'unicode-bare', make: repeat('ü€ ') },
  { name: 'prose-json-alternating', make: repeat('Some prose. {"a": [1, 2]} More prose.\n') },
  { name: 'python-literals', make: (size) => '[' + 'None, True, '.repeat(Math.ceil(size / 12)) + ']' },
  { name: 'truncated-members', make: (size) => '{' + '"a": 1, "b'.repeat(Math.ceil(size / 10)) },
  { name: 'mismatched-closers', make: repeat('[}') },
  { name: 'numbers-odd', make: (size) => '[' + '1e999, -., 0x1, '.repeat(Math.ceil(size / 16)) + ']' },
  { name: 'think-tags', make: repeat('<think>{</think>') },
  { name: 'sentences-after-fence', make: (size) => '```json\n{"a": 1}\n```\n' + 'Anything else? '.repeat(Math.ceil(size / 15)) },
  // bare `key: value` lines with no brace (read again as an object's lines), and a root array's
  // comma followed by items that never reach their `]`
  { name: 'bare-member-lines', make: repeat('name: John Smith: \t  \n') },
  { name: 'root-array-comma-items', make: (size) => '[1], ' + '2, "x", '.repeat(Math.ceil(size / 8)) },
  // Python sets (structure.ts): many sets, sets opened and never closed, a long set turned into an
  // object by a colon at its end, and bracketed labels one after another at the start.
  { name: 'sets-many', make: (size) => '[' + "{1, 'a', None}, ".repeat(Math.ceil(size / 16)) + ']' },
  { name: 'sets-open', make: repeat('{1, ') },
  { name: 'set-long-then-colon', make: (size) => '{' + '"a", '.repeat(Math.ceil(size / 5)) + '"b": 1}' },
  { name: 'labels-repeated', make: repeat('[x] ') },
  // sets of tuples left open
  { name: 'tuple-sets-open', make: repeat('{(1, "a"), ') },
  // a dict of many tuple keys, and tuple keys that never close
  { name: 'tuple-keys', make: repeat('(1, "a"): 2, ', '{', '}') },
  { name: 'tuple-keys-open', make: repeat('{(1, "a" ') },
  // subscripts in prose never closed on their line, and task lists' boxes one after another (scan-prose.ts)
  { name: 'subscripts-open', make: repeat('a[b[') },
  { name: 'task-boxes', make: repeat('- [ ] x\n') },
  // JSON written in a string with its quotes unescaped, never closed (scan-string.ts embeddedJsonEnd)
  { name: 'embedded-json-open', make: repeat('"x", ', '{"a": "[') },
  // valid JSON of long numbers just short of a double's range: the value is walked (parsed-wrong.ts)
  { name: 'long-integer-parts', make: repeat(`${'9'.repeat(209)},`, '[', '1]') },
];

/** A schema the hostile shapes rarely fit: the schema paths then read every candidate. */
export const HOSTILE_SCHEMA = {
  type: 'object',
  required: ['a', 'zz'],
  properties: { a: { type: 'string' }, zz: { type: 'number' } },
} as const;

/** Pushes of this many characters in the streaming paths (a model's token stream is smaller; this keeps runs short). */
export const HOSTILE_CHUNK = 64;

/** One way the engine is driven over a text: the batch call, or a stream pushed in HOSTILE_CHUNK pieces. */
export interface HostilePath {
  name: string;
  run(text: string): void;
}

interface EngineApi {
  repair(text: string, options?: object): unknown;
  createStream(options?: object): { push(chunk: string): unknown; finalize(): unknown };
}

function pushAll(stream: { push(chunk: string): unknown }, text: string): void {
  for (let i = 0; i < text.length; i += HOSTILE_CHUNK) stream.push(text.slice(i, i + HOSTILE_CHUNK));
}

/** The paths every shape is driven through: batch with and without a schema, pushes per preview mode, finalize. */
export function hostilePaths(engine: EngineApi): HostilePath[] {
  return [
    { name: 'batch', run: (t) => void engine.repair(t) },
    { name: 'batch+schema', run: (t) => void engine.repair(t, { schema: HOSTILE_SCHEMA }) },
    { name: 'push complete', run: (t) => pushAll(engine.createStream({ preview: 'complete' }), t) },
    { name: 'push progressive', run: (t) => pushAll(engine.createStream({ preview: 'progressive' }), t) },
    { name: 'push patch', run: (t) => pushAll(engine.createStream({ preview: 'patch' }), t) },
    {
      name: 'push+finalize schema',
      run: (t) => {
        const s = engine.createStream({ preview: 'progressive', schema: HOSTILE_SCHEMA });
        pushAll(s, t);
        s.finalize();
      },
    },
  ];
}

// A full collection before each timed run: the garbage earlier runs left in the old generation
// otherwise lands on whichever run triggers the next major GC (measured: ratios of 20x on linear work).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Best (least) time of `runs` calls, in ms, each after a full collection: the process's CPU time
 * (user + system, garbage collection threads included), which other processes on a busy machine
 * do not inflate as they do wall time.
 */
export function bestOf(runs: number, work: () => void): number {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    collectGarbage();
    const a = process.cpuUsage();
    work();
    const used = process.cpuUsage(a);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

export interface Scaling {
  /** Size whose time is at least the floor (or the largest tried). */
  size: number;
  /** Whether n's time reached the floor (else n is the largest size allowed and its time is noise). */
  timed: boolean;
  small: number;
  large: number;
  /** large / small: about 8 for linear work, 64 for quadratic. */
  ratio: number;
}

/**
 * How a path's time grows from n to 8n on a shape, n the first size from `from` (doubling) whose
 * best time reaches `floorMs` — timings of a few ms are noise on a busy machine. Each figure is
 * the best of `runs`; a ratio above `retryAbove` is measured again (up to `attempts` times) and
 * the lowest kept, since a busy machine only ever makes a run slower.
 */
export function measureScaling(work: (text: string) => void, make: (size: number) => string, options: {
  from: number; maxSize: number; floorMs: number; runs: number; retryAbove: number; attempts: number;
}): Scaling {
  let size = options.from;
  let text = make(size);
  work(text); // warm-up: the first call compiles
  let small = bestOf(options.runs, () => work(text));
  while (small < options.floorMs && size * 2 <= options.maxSize) {
    size *= 2;
    text = make(size);
    small = bestOf(options.runs, () => work(text));
  }
  const timed = small >= options.floorMs;
  const big = make(size * 8);
  let large = bestOf(options.runs, () => work(big));
  let ratio = large / small;
  for (let a = 1; a < options.attempts && ratio > options.retryAbove; a++) {
    small = Math.min(small, bestOf(options.runs, () => work(text)));
    large = Math.min(large, bestOf(options.runs, () => work(big)));
    ratio = large / small;
  }
  return { size, timed, small, large, ratio };
}

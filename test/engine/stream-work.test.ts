// A push must cost its chunk, not the buffer, with the default options (`buffered` echoed). Counted,
// not timed: while the pushes run, the string builtins the engine can copy characters with are
// wrapped to add up the characters they produce (or, for JSON.parse, read). Rejoining the buffer on
// every push makes that sum grow with the square of the document; reading each chunk a bounded
// number of times keeps it a small multiple of the document's length.
import t, { type Test } from 'tap';
import { createStream, type StreamOptions } from '../../engine/index.js';
import { makeDocument } from '../../bench/stream/document.js';
import { charactersCopied } from '../../support/copy-counter.js';

/** The characters copied while `doc` is pushed in chunks of `size` (cut beforehand). */
function pushWork(t: Test, doc: string, options: StreamOptions, size: number): number {
  const chunks: string[] = [];
  for (let i = 0; i < doc.length; i += size) chunks.push(doc.slice(i, i + size));
  const stream = createStream(options);
  let last: string | undefined;
  const chars = charactersCopied(() => {
    for (const chunk of chunks) last = stream.push(chunk).buffered;
  });
  // The state still carries the whole buffer, exactly.
  if (options.echoBuffer ?? options.preview !== 'patch') t.equal(last, doc, 'the last state echoes the whole buffer');
  return chars;
}

const shapes: Record<string, (bytes: number) => string> = {
  'an array of objects': (bytes) => makeDocument(bytes),
  'one long string member': (bytes) => JSON.stringify({ content: 'word '.repeat(bytes / 5) }),
  'a root string': (bytes) => JSON.stringify('word '.repeat(bytes / 5)),
  // Long tokens the scanner cannot decide until they end: each push must read its chunk, not the token again.
  'one long bare key': (bytes) => `{${'k'.repeat(bytes)}: 1}`,
  'one long number': (bytes) => `{"n": ${'1'.repeat(bytes)}}`,
  'one long unquoted value': (bytes) => `{"v": ${'word '.repeat(bytes / 5)}x}`,
  'one long block comment': (bytes) => `{"a": 1 /* ${'note '.repeat(bytes / 5)}*/}`,
  'one long line comment': (bytes) => `{"a": 1 // ${'note '.repeat(bytes / 5)}\n}`,
  'one long # comment': (bytes) => `{"a": 1 # ${'note '.repeat(bytes / 5)}\n}`,
};

for (const [name, make] of Object.entries(shapes)) {
  // Progressive and patch previews are grown from the scanner's changes: they cost the chunk too.
  for (const options of [{}, { echoBuffer: false }, { preview: 'progressive' }, { preview: 'patch' }] as StreamOptions[]) {
    const label = options.preview !== undefined ? `preview: ${options.preview}` : options.echoBuffer === false ? 'echoBuffer: false' : 'default options';
    t.test(`${label}: pushing ${name} in 1 KB chunks copies each character a bounded number of times`, async (t) => {
      const small = make(1 << 17);
      const large = make(1 << 19);
      const smallWork = pushWork(t, small, options, 1024);
      const largeWork = pushWork(t, large, options, 1024);
      t.ok(smallWork <= 4 * small.length, `${smallWork} characters copied for a ${small.length}-character document`);
      t.ok(largeWork <= 4 * large.length, `${largeWork} characters copied for a ${large.length}-character document`);
      t.ok(largeWork <= 5 * smallWork, `4x the document, ${(largeWork / smallWork).toFixed(2)}x the work`);
    });
  }
}

t.test('tiny pushes: the pieces are joined now and then, and the work stays linear', async (t) => {
  // 4-character pushes: joining the pieces from time to time (so they do not pile up in memory)
  // copies the buffer, but only after buffer/64 pushes.
  for (const options of [{}, { echoBuffer: false }, { preview: 'patch' }] as StreamOptions[]) {
    const small = makeDocument(1 << 15);
    const large = makeDocument(1 << 17);
    const smallWork = pushWork(t, small, options, 4);
    const largeWork = pushWork(t, large, options, 4);
    t.ok(largeWork <= 40 * large.length, `${largeWork} characters copied for a ${large.length}-character document`);
    t.ok(largeWork <= 5 * smallWork, `4x the document, ${(largeWork / smallWork).toFixed(2)}x the work`);
  }
});

t.test('tiny pushes into a long held token: the work stays linear', async (t) => {
  const make = (bytes: number): string => `{${'k'.repeat(bytes)}: 1}`;
  const small = make(1 << 14);
  const large = make(1 << 16);
  const smallWork = pushWork(t, small, {}, 4);
  const largeWork = pushWork(t, large, {}, 4);
  // Every state echoes the token's last 256 characters: 64 per character pushed, 4 at a time.
  t.ok(largeWork <= 100 * large.length, `${largeWork} characters copied for a ${large.length}-character document`);
  t.ok(largeWork <= 5 * smallWork, `4x the document, ${(largeWork / smallWork).toFixed(2)}x the work`);
});

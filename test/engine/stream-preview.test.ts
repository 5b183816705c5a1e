// Stream previews (docs/streaming.md "Preview modes"): `complete` judged on the JSON a reply holds,
// `progressive` growing under its guarantees, `patch` reproducing the progressive previews. The
// property test cuts generated documents at every boundary.
import fc from 'fast-check';
import t from 'tap';
import { MalformedEmitter, type MalformedStyle } from '../../bench/engine/emit-malformed.js';
import { createRandom } from '../../support/random.js';
import { applyPatch } from '../../client/apply-patch.js';
import { createStream, repair, type StreamState } from '../../engine/index.js';
import { chunks, run, runViolation } from '../helpers/preview-run.js';

const SEED = Number(process.env.FC_SEED ?? 20261127);

export const FENCED_REPLY = 'Here is the record you asked for.\n```json\n{"name": "Ada Lovelace", "born": 1815, ' +
  '"fields": ["mathematics", "poetry"], "active": false, "note": null}\n```\nLet me know if you need anything else.';

t.test('complete previews judge the JSON a fenced reply holds, not the raw buffer', (t) => {
  const stream = createStream();
  let buffer = '';
  let shown = false;
  const closeAt = FENCED_REPLY.indexOf('}\n```') + 1;
  for (const piece of chunks(FENCED_REPLY, 8)) {
    buffer += piece;
    const state = stream.push(piece);
    t.equal(state.buffered, buffer, 'buffered stays the raw buffer');
    if (buffer.length >= closeAt) {
      if (!shown) t.ok(state.json_parseable && state.safe_to_emit, 'the push that closes the object shows it');
      shown = true;
      t.same(state.partial, repair(buffer).repaired, 'partial is what finalize would answer for the buffer');
      t.equal(state.json_parseable, true);
    } else {
      t.equal(state.partial, null);
      t.equal(state.safe_to_emit, false);
    }
  }
  t.ok(shown);
  t.end();
});

t.test('progressive and patch previews of the fenced reply in 8-character pushes', (t) => {
  const r = run(chunks(FENCED_REPLY, 8));
  t.equal(runViolation(r, true), null);
  // Values show while the model writes them: the name before its closing quote.
  t.ok(r.progressive.some((p) => typeof (p as { name?: unknown } | null)?.name === 'string' && (p as { name: string }).name.length < 'Ada Lovelace'.length && (p as { name: string }).name.length > 0));
  // No number shows half-written.
  t.notOk(r.progressive.some((p) => { const b = (p as { born?: unknown } | null)?.born; return b !== undefined && b !== 1815; }));
  t.ok(r.settled.flat().includes(''), 'the root settles when it closes');
  t.end();
});

t.test('the patch answers of a session add up to a small multiple of the document', (t) => {
  const doc = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Item ${i}`, tags: ['a', `t${i % 7}`], owner: { name: `U${i}` } })));
  const r = run(chunks(doc, 64));
  t.equal(runViolation(r, true), null);
  t.ok(r.patchBytes <= 3 * doc.length, `${r.patchBytes} bytes of patches for ${doc.length}`);
  t.end();
});

t.test('a string nested deep, pushed a character at a time, costs its text, not its path', (t) => {
  // Each push's operations are an append to the same string: after the first, its path is left out.
  for (const [open, close] of [['[', ']'], ['{"k":', '}']] as const) {
    const depth = 1000;
    const text = 'x'.repeat(400);
    const doc = open.repeat(depth) + '"' + text + '"' + close.repeat(depth);
    const r = run([open.repeat(depth) + '"', ...chunks(text, 1), '"' + close.repeat(depth)]);
    t.equal(runViolation(r, true), null, `${open}: every guarantee`);
    // The first push's container (with the string's path) costs the document; each later one ~30 bytes.
    t.ok(r.patchBytes <= doc.length + 40 * text.length, `${open}: ${r.patchBytes} bytes of patches for ${doc.length}`);
  }
  const s = createStream({ preview: 'patch' });
  s.push('{"a": [{"b": "x');
  t.same(s.push('y').partial_patch, [{ op: 'append', path: '/a/0/b', value: 'y' }], 'the first append names its string');
  t.same(s.push('z').partial_patch, [{ op: 'append', value: 'z' }], 'the next one continues it');
  t.same(s.push('", "c": "q').partial_patch, [{ op: 'add', path: '/a/0/c', value: 'q' }]);
  t.same(s.push('r').partial_patch, [{ op: 'append', value: 'r' }], 'after an add of the string, too');
  // applyPatch leaves every value it returned as it was: the next call copies what it changes.
  const kept: Array<[unknown, string]> = [];
  let value: unknown = null;
  const p = createStream({ preview: 'patch' });
  for (const piece of chunks('{"a": {"b": [1, {"c": "xy', 1).concat(chunks('z"}, 3], "d": "e"}, "f": [[], {}]}', 2))) {
    value = applyPatch(value, p.push(piece).partial_patch!);
    kept.push([value, JSON.stringify(value)]);
  }
  t.ok(kept.every(([v, text]) => JSON.stringify(v) === text), 'no value changed after it was returned');
  t.same(value, p.finalize().repaired);
  // The client's applyPatch remembers the last path for the value it returned; a copy has none.
  let doc = applyPatch(null, [{ op: 'add', path: '', value: { a: [{ b: '' }] } }, { op: 'append', path: '/a/0/b', value: 'x' }]);
  doc = applyPatch(doc, [{ op: 'append', value: 'y' }]);
  t.same(doc, { a: [{ b: 'xy' }] });
  t.throws(() => applyPatch(structuredClone(doc), [{ op: 'append', value: 'z' }]), /append without a path/);
  t.end();
});

t.test('generated documents cut at every boundary keep every guarantee', (t) => {
  const documents = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom('plain', 'indented', 'fenced'));
  fc.assert(fc.property(documents, ([value, style]) => {
    const json = style === 'indented' ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    if (json === undefined) return true;
    const text = style === 'fenced' ? `Sure:\n\`\`\`json\n${json}\n\`\`\`\nDone.` : json;
    const container = value !== null && typeof value === 'object';
    // One character a push (every boundary a cut), then every single cut into two pushes.
    const single = runViolation(run([...text]), container);
    if (single !== null) throw new Error(`${JSON.stringify(text)} in 1-character pushes: ${single}`);
    for (let cut = 1; cut < text.length; cut += Math.max(1, Math.floor(text.length / 40))) {
      const v = runViolation(run([text.slice(0, cut), text.slice(cut)]), container);
      if (v !== null) throw new Error(`${JSON.stringify(text)} cut at ${cut}: ${v}`);
    }
    return true;
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('model-style spellings (bare keys, single quotes, comments, missing commas) keep every guarantee', (t) => {
  const style: fc.Arbitrary<MalformedStyle> = fc.record({
    bareKeys: fc.constantFrom(0, 1), singleQuotes: fc.constantFrom(0, 1), trailingCommas: fc.constantFrom(0, 1),
    lineComments: fc.constantFrom(0, 0.3), blockComments: fc.constantFrom(0, 0.3), missingCommas: fc.constantFrom(0, 0.3),
    pythonLiterals: fc.boolean(),
  });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), style, fc.nat(), (value, spelling, seed) => {
    const emitter = new MalformedEmitter(createRandom(seed), spelling);
    emitter.value(value, '');
    const text = emitter.text();
    const v = runViolation(run([...text]), value !== null && typeof value === 'object');
    if (v !== null) throw new Error(`${JSON.stringify(text)} in 1-character pushes: ${v}`);
    return true;
  }), { seed: SEED, numRuns: 150 });
  t.end();
});

t.test('schema-typed progressive previews: coerced members, enums only once whole and matching', (t) => {
  const schema = {
    type: 'object',
    properties: {
      action: { enum: ['Delete', 'Archive'] },
      count: { type: 'integer' },
      label: { type: 'string' },
      items: { type: 'array', items: { type: 'number' } },
    },
    required: ['action'],
  };
  const text = '{"label": "weekly cleanup", "count": "12", "action": "delete", "items": ["1.5", 2], "extra": "x"}';
  const states: StreamState[] = [];
  const stream = createStream({ schema, preview: 'progressive' });
  const shown: unknown[] = [];
  for (const piece of chunks(text, 3)) {
    states.push(stream.push(piece));
    shown.push(structuredClone(states[states.length - 1]!.partial));
  }
  const final = stream.finalize();
  for (const p of shown) {
    const v = p as Record<string, unknown> | null;
    if (v === null) continue;
    t.ok(v.action === undefined || v.action === 'Delete', `action shown only whole and matching (${String(v.action)})`);
    t.ok(v.count === undefined || v.count === 12, 'count appears coerced');
    t.notOk('extra' in v, 'an undeclared member strict mode removes is never shown');
    for (const item of (v.items as unknown[] | undefined) ?? []) t.type(item, 'number');
  }
  t.ok(shown.some((p) => typeof (p as { label?: string } | null)?.label === 'string' && (p as { label: string }).label.length < 'weekly cleanup'.length), 'a free string grows');
  t.same(shown[shown.length - 1], final.repaired, 'the last preview equals finalize');
  t.end();
});

t.test('echo_buffer keeps working beside previews', (t) => {
  t.equal(createStream({ preview: 'patch' }).push('{"a"').buffered, undefined, 'patch previews leave the buffer out by default');
  t.equal(createStream({ preview: 'patch', echoBuffer: true }).push('{"a"').buffered, '{"a"');
  t.equal(createStream({ preview: 'progressive', echoBuffer: false }).push('{"a"').buffered, undefined);
  t.equal(createStream({ preview: 'progressive' }).push('{"a"').buffered, '{"a"');
  t.end();
});

t.test('with a schema, safe_to_emit means what finalize answers', async (t) => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] };
  for (const [text, safeAtEnd] of [
    ['```json\n{"name": "Lamp", "price": "249.99"}\n```', false],
    ['```json\n{"name": "Lamp", "price": 249.99}\n```', true],
  ] as const) {
    for (const preview of ['complete', 'progressive', 'patch'] as const) {
      const s = createStream({ schema, preview });
      let last;
      for (let i = 0; i < text.length; i += 3) {
        last = s.push(text.slice(i, i + 3));
        if (last.safe_to_emit && last.partial !== undefined) t.same(last.partial, { name: 'Lamp', price: 249.99 }, 'a safe partial fits the schema');
      }
      const final = s.finalize();
      t.ok(final.success);
      t.equal(last!.safe_to_emit, safeAtEnd, `${preview}: safe_to_emit ${safeAtEnd} for ${JSON.stringify(text)}`);
      t.equal(safeAtEnd, final.metadata.confidence === 'high', 'as finalize: certain or not');
    }
  }
});

t.test('JSON on a line of prose shows a preview once the value closed', async (t) => {
  for (const text of ['Sure: {"name": "Lamp", "price": 249.99} Hope that helps.', '{"name": "Lamp", "price": 249.99} Hope that helps.']) {
    for (const preview of ['complete', 'progressive'] as const) {
      const s = createStream({ preview });
      let last;
      for (let i = 0; i < text.length; i += 4) last = s.push(text.slice(i, i + 4));
      t.ok(last!.json_parseable, `${preview}: parseable after the object closed: ${text}`);
      t.ok(last!.safe_to_emit, `${preview}: safe to emit`);
      t.same(last!.partial, { name: 'Lamp', price: 249.99 });
      t.same(s.finalize().repaired, last!.partial, 'what finalize answers');
    }
  }
});

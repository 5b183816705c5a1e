// Stream previews over the real server, in both contracts: a model's fenced reply pushed in
// 8-character chunks shows its object in `complete` previews once the object closes, grows in
// `progressive` ones, and `patch` previews rebuild the progressive ones; a bad `preview` is refused
// in the contract's own shape; /openapi.json publishes the option.
import t from 'tap';
import { applyPatch } from '../../client/apply-patch.js';
import { repair } from '../../engine/index.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'preview-key';
const auth = bearer(KEY);
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, WORKERS: '2' });
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;
let uuidCounter = 0;
const newUuid = (): string => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`;

const REPLY = 'Here is the record you asked for.\n```json\n{"name": "Ada Lovelace", "born": 1815, ' +
  '"fields": ["mathematics", "poetry"], "note": null}\n```\nLet me know if you need anything else.';
const CHUNKS: string[] = [];
for (let i = 0; i < REPLY.length; i += 8) CHUNKS.push(REPLY.slice(i, i + 8));
const CLOSED_AT = REPLY.indexOf('}\n```') + 1;
const FINAL = repair(REPLY).repaired;

type Contract = 'envelope' | 'compact';

/** A session in `contract` with `preview` (undefined: not sent); every push's answer, then finalize's. */
async function session(contract: Contract, preview: string | undefined, extra: object = {}): Promise<{ pushes: Array<Record<string, unknown>>; final: Record<string, unknown> }> {
  const id = contract === 'compact' ? newUuid() : '';
  const options = { ...(preview === undefined ? {} : { preview }), ...extra };
  const started = await postJson(at('start'), contract === 'compact' ? { sessionId: id, ...options } : options, auth);
  const sessionId: string = contract === 'compact' ? id : started.body.session_id;
  if (typeof sessionId !== 'string' || sessionId === '') throw new Error(`start failed: ${JSON.stringify(started.body)}`);
  const pushes: Array<Record<string, unknown>> = [];
  for (const chunk of CHUNKS) {
    const { body } = await postJson(at('push'), contract === 'compact' ? { sessionId, content: chunk } : { session_id: sessionId, chunk }, auth);
    pushes.push(contract === 'compact' ? body : body.state);
  }
  const final = await postJson(at('finalize'), contract === 'compact' ? { sessionId } : { session_id: sessionId }, auth);
  return { pushes, final: final.body };
}

const fields = {
  envelope: { valid: 'json_parseable', safe: 'safe_to_emit', patch: 'partial_patch' },
  compact: { valid: 'valid', safe: 'safeToEmit', patch: 'partialPatch' },
} as const;

for (const contract of ['envelope', 'compact'] as const) {
  const f = fields[contract];

  t.test(`${contract}: the default (complete) preview shows the fenced reply's object once it closes`, async (t) => {
    const { pushes, final } = await session(contract, undefined);
    let buffered = '';
    for (let k = 0; k < pushes.length; k++) {
      buffered += CHUNKS[k]!;
      const state = pushes[k]!;
      if (buffered.length >= CLOSED_AT) {
        t.equal(state[f.valid], true, `push ${k + 1}: parseable`);
        t.equal(state[f.safe], true);
        t.same(state.partial, repair(buffered).repaired, `push ${k + 1}: what finalize would answer`);
      } else {
        t.equal(state[f.valid], false);
        t.equal(state[f.safe], false);
        t.equal(state.partial, null);
      }
      if (contract === 'envelope') t.equal(state.buffered, buffered, 'buffered stays raw');
      t.notOk('settled' in state);
    }
    t.same(contract === 'compact' ? JSON.parse(final.repaired as string) : final.repaired, FINAL);
  });

  t.test(`${contract}: progressive previews grow; patch previews rebuild them exactly`, async (t) => {
    const progressive = await session(contract, 'progressive');
    const patch = await session(contract, 'patch');
    let doc: unknown = null;
    let grew = false;
    for (let k = 0; k < CHUNKS.length; k++) {
      const p = progressive.pushes[k]!;
      const q = patch.pushes[k]!;
      t.ok(Array.isArray(p.settled) && Array.isArray(q.settled), 'settled in both');
      t.notOk('partial' in q, 'patch states carry no partial');
      t.notOk('buffered' in q, 'nor the buffer, unless asked');
      doc = applyPatch(doc, q[f.patch] as never);
      t.same(doc, p.partial, `push ${k + 1}: the patches give the progressive preview`);
      const name = (p.partial as { name?: string } | null)?.name;
      if (typeof name === 'string' && name.length > 0 && name !== 'Ada Lovelace') grew = true;
      const born = (p.partial as { born?: number } | null)?.born;
      t.ok(born === undefined || born === 1815, 'no number shows half-written');
    }
    t.ok(grew, 'the name showed while it was written');
    t.same(progressive.pushes.at(-1)!.partial, FINAL, 'the last preview equals finalize');
    t.same(doc, FINAL);
  });
}

t.test('a bad preview is refused in each contract\'s shape; echo_buffer still works with it', async (t) => {
  const envelope = await postJson(at('start'), { preview: 'partial' }, auth);
  t.match(envelope.body, { success: false, metadata: { errors: [{ code: 'INVALID_REQUEST', message: /preview/ }] } });
  const compact = await postJson(at('start'), { sessionId: newUuid(), preview: 7 }, auth);
  t.match(compact.body, { valid: false, errors: [{ code: 'INVALID_REQUEST', message: /preview/ }] });
  const echoed = await session('envelope', 'patch', { echo_buffer: true });
  t.equal(echoed.pushes.at(-1)!.buffered, REPLY);
});

t.test('/openapi.json publishes the start option and the state fields', async (t) => {
  const doc = await (await fetch(`${server.url}/openapi.json`)).json() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  const schemas = doc.components.schemas;
  t.match(schemas.EnvelopeStreamStartRequest!.properties.preview, { enum: ['complete', 'progressive', 'patch'] });
  t.match(schemas.CompactStreamStartRequest!.properties.preview, { enum: ['complete', 'progressive', 'patch'] });
  t.ok(schemas.StreamState!.properties.partial_patch && schemas.StreamState!.properties.settled);
  t.ok(schemas.CompactStreamPushResponse!.properties.partialPatch && schemas.CompactStreamPushResponse!.properties.settled);
});

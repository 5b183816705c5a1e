// Streaming sessions that follow their owner, on two real nodes sharing a real Redis and PostgreSQL, in both
// contracts: any node takes any push or finalize and the answers are the owner's own; another key
// never reaches a session through any node; an unsigned forward is refused; a dead or frozen owner
// makes a push via the other node SESSION_NOT_FOUND (recoverable) promptly, never a hang.
import t from 'tap';
import { bodyDigest, peerSignature, type PeerStamp } from '../../server/streaming/forwarding/peer-signature.js';
import { PEER_HEADERS, PEER_PATH } from '../../server/streaming/forwarding/peer-client.js';
import { bearer, postJson, type StartedServer } from '../helpers/start-server.js';
import { CLUSTER_SECRET, startCluster } from './cluster-helpers.js';

const KEY = 'cluster-stream-key-a';
const OTHER = 'cluster-stream-key-b';
const cluster = await startCluster(t, { nodeIds: ['node-a', 'node-b'], env: { API_KEYS: `${KEY}:unlimited,${OTHER}:unlimited`, WORKERS: '1' } });
const [a, b] = cluster.nodes as [StartedServer, StartedServer];
const at = (node: StartedServer, endpoint: string): string => `${node.url}/v1/repair/stream/${endpoint}`;
let uuidCounter = 0;
const newUuid = (): string => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`;

const PIECES = ['{"name": "Ada", "tags": ["x", ', '"y"], "smile": "\ud83d', '\ude00", "n": 12', '.5, "open": [1, 2'];
const WHOLE = PIECES.join('');
/** The first error of an answer in either contract (envelope: metadata.errors, compact: errors). */
const firstError = (body: any): { code?: string; recoverable?: boolean; message?: string } => body.metadata?.errors?.[0] ?? body.errors?.[0] ?? {};

t.test('envelope: started on one node, pushed and finalized through both, answered as by one node', async (t) => {
  const started = await postJson(at(a, 'start'), {}, bearer(KEY));
  const id = started.body.session_id as string;
  t.match(id, /^node-a\.[A-Za-z0-9_-]{22}$/, 'the id names its owner and keeps 128 random bits');
  const nodes = [b, a, b, b];
  let pushed = '';
  for (let i = 0; i < PIECES.length; i++) {
    pushed += PIECES[i];
    const answer = await postJson(at(nodes[i]!, 'push'), { session_id: id, chunk: PIECES[i] }, bearer(KEY));
    t.equal(answer.status, 200);
    t.ok(answer.body.state, JSON.stringify(answer.body));
    t.equal(answer.body.state.buffered, pushed, `push ${i + 1} via ${nodes[i] === a ? 'the owner' : 'the other node'}`);
  }
  const final = await postJson(at(b, 'finalize'), { session_id: id }, bearer(KEY));
  const batch = await postJson(`${a.url}/v1/repair`, { raw_output: WHOLE }, bearer(KEY));
  t.same(final.body, batch.body, 'finalize via the other node answers what batch repair answers');
  t.equal(final.body.repaired.smile, '\ud83d\ude00', 'a character split across pushes on two nodes is one character');
  t.equal(firstError((await postJson(at(a, 'push'), { session_id: id, chunk: '1' }, bearer(KEY))).body).code, 'SESSION_NOT_FOUND', 'finalized: gone on the owner');
  t.equal(firstError((await postJson(at(b, 'push'), { session_id: id, chunk: '1' }, bearer(KEY))).body).code, 'SESSION_NOT_FOUND', 'and through the other node');
});

t.test('compact: any node pushes and finalizes, and "already open" holds across nodes', async (t) => {
  const uuid = newUuid();
  t.equal((await postJson(at(b, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200);
  const again = await postJson(at(a, 'start'), { sessionId: uuid.toUpperCase() }, bearer(KEY));
  t.match(firstError(again.body), { code: 'INVALID_REQUEST', message: /already open/ }, 'open on node-b: refused on node-a');
  let pushed = '';
  for (const [i, piece] of PIECES.entries()) {
    pushed += piece;
    // The pair split across pushes 2 and 3 is one 4-byte character.
    const total = Buffer.byteLength(pushed, 'utf8');
    const answer = await postJson(at(i % 2 === 0 ? a : b, 'push'), { sessionId: uuid, content: piece }, bearer(KEY));
    t.match(answer.body, { sessionId: uuid, bufferedBytes: total, totalReceived: total }, `push ${i + 1}`);
  }
  const final = await postJson(at(a, 'finalize'), { sessionId: uuid }, bearer(KEY));
  const batch = await postJson(`${a.url}/v1/repair`, { content: WHOLE }, bearer(KEY));
  t.same(final.body, batch.body, 'finalize via node-a answers what batch repair answers');
  t.equal((await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200, 'once finalized the id is free on every node');
  const empty = await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY));
  t.notMatch(JSON.stringify(empty.body), /SESSION_NOT_FOUND/, 'and the new session is reached from node-b');
});

t.test('previews cross nodes unchanged: patch and progressive answers via the other node are the owner\'s', async (t) => {
  const direct = (await postJson(at(a, 'start'), { preview: 'patch' }, bearer(KEY))).body.session_id as string;
  const forwarded = (await postJson(at(a, 'start'), { preview: 'patch' }, bearer(KEY))).body.session_id as string;
  const uuid = newUuid();
  await postJson(at(a, 'start'), { sessionId: uuid, preview: 'progressive' }, bearer(KEY));
  let grew = 0;
  for (const piece of PIECES) {
    const owner = await postJson(at(a, 'push'), { session_id: direct, chunk: piece }, bearer(KEY));
    const other = await postJson(at(b, 'push'), { session_id: forwarded, chunk: piece }, bearer(KEY));
    t.same(other.body, owner.body, 'the forwarded answer is the owner\'s, patch preview and all');
    if (owner.body.state.partial_patch.length > 0) grew++;
    const compact = await postJson(at(b, 'push'), { sessionId: uuid, content: piece }, bearer(KEY));
    t.ok(Array.isArray(compact.body.settled) && compact.body.partial !== null, 'compact progressive preview via the other node');
  }
  t.equal(grew, PIECES.length, 'every push grew the preview');
  for (const id of [direct, forwarded]) await postJson(at(b, 'finalize'), { session_id: id }, bearer(KEY));
  await postJson(at(b, 'finalize'), { sessionId: uuid }, bearer(KEY));
});

t.test('another key never reaches a session, through either node', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  const uuid = newUuid();
  await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY));
  for (const node of [a, b]) {
    const envelope = await postJson(at(node, 'push'), { session_id: id, chunk: '[' }, bearer(OTHER));
    t.equal(firstError(envelope.body).code, 'SESSION_NOT_FOUND');
    const compact = await postJson(at(node, 'push'), { sessionId: uuid, content: '[' }, bearer(OTHER));
    t.equal(firstError(compact.body).code, 'SESSION_NOT_FOUND');
    t.equal(firstError((await postJson(at(node, 'finalize'), { session_id: id }, bearer(OTHER))).body).code, 'SESSION_NOT_FOUND');
  }
  const mine = await postJson(at(b, 'push'), { session_id: id, chunk: '[1' }, bearer(KEY));
  t.equal(mine.body.state.buffered, '[1', 'the other key\'s attempts added nothing');
});

t.test('the peer endpoint takes only forwards signed with CLUSTER_SECRET, recent, and each once', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  const keyId = 'unknown-key-id';
  const fields = { endpoint: 'push', contract: 'envelope', keyId, sessionId: encodeURIComponent(id), warnings: '' };
  const body = Buffer.from('[1', 'utf16le');
  let sequence = 0;
  const stampAt = (time: string, sent = body): PeerStamp => ({ time, nonce: `test-sender:${++sequence}`, length: sent.byteLength, digest: bodyDigest(sent) });
  const send = (stamp: PeerStamp, signature: string, sent = body): Promise<Response> => fetch(`${a.url}${PEER_PATH}`, {
    method: 'POST',
    headers: {
      [PEER_HEADERS.endpoint]: fields.endpoint, [PEER_HEADERS.contract]: fields.contract, [PEER_HEADERS.keyId]: keyId,
      [PEER_HEADERS.sessionId]: fields.sessionId, [PEER_HEADERS.warnings]: '', [PEER_HEADERS.time]: stamp.time,
      [PEER_HEADERS.nonce]: stamp.nonce, [PEER_HEADERS.digest]: stamp.digest, [PEER_HEADERS.signature]: signature,
    },
    body: sent,
  });
  const now = String(Date.now());
  t.equal((await send(stampAt(now), '')).status, 401, 'no signature');
  const other = stampAt(now);
  t.equal((await send(other, peerSignature('another-secret-0123456789', other, fields))).status, 401, 'another secret');
  const old = stampAt(String(Date.now() - 60_000));
  t.equal((await send(old, peerSignature(CLUSTER_SECRET, old, fields))).status, 401, 'a minute old');
  const tampered = stampAt(now);
  t.equal((await send(tampered, peerSignature(CLUSTER_SECRET, tampered, { ...fields, keyId: 'x' }))).status, 401, 'a field changed after signing');
  const swapped = stampAt(now);
  t.equal((await send(swapped, peerSignature(CLUSTER_SECRET, swapped, fields), Buffer.from('[2', 'utf16le'))).status, 401, 'another body under a signed digest');
  const good = stampAt(now);
  const signed = await send(good, peerSignature(CLUSTER_SECRET, good, fields));
  t.equal(signed.status, 200);
  t.equal(firstError(await signed.json()).code, 'SESSION_NOT_FOUND', 'signed, but the session is another key\'s');
  const mine = await postJson(at(a, 'push'), { session_id: id, chunk: '[' }, bearer(KEY));
  t.equal(mine.body.state.buffered, '[', 'nothing reached the session');
});

t.test('Redis frozen: envelope sessions stay reachable through the other node (the last view of the registry)', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  cluster.redis!.pause();
  t.teardown(() => cluster.redis!.resume());
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const pushed = await postJson(at(b, 'push'), { session_id: id, chunk: '[1' }, bearer(KEY));
  t.equal(pushed.body.state?.buffered, '[1', 'forwarded to its live owner with Redis away longer than a registry TTL');
  cluster.redis!.resume();
});

t.test('a node with another CLUSTER_SECRET: its forwards are refused, and its client sees SESSION_NOT_FOUND, not a key error', async (t) => {
  const stranger = await cluster.add('node-x', { CLUSTER_SECRET: 'a-different-secret-0123456789' });
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  const pushed = await postJson(at(stranger, 'push'), { session_id: id, chunk: '[' }, bearer(KEY));
  t.equal(firstError(pushed.body).code, 'SESSION_NOT_FOUND');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.match(stranger.stdout(), /refused a forwarded request; is CLUSTER_SECRET the same on every node\?/, 'the misconfiguration is logged');
  t.equal((await postJson(at(b, 'push'), { session_id: id, chunk: '[' }, bearer(KEY))).body.state.buffered, '[', 'the session itself is untouched');
  await stranger.stop('SIGTERM');
});

async function timedPush(node: StartedServer, body: object): Promise<{ ms: number; code: string; recoverable: boolean }> {
  const started = performance.now();
  const answer = await postJson(at(node, 'push'), body, bearer(KEY));
  const error = firstError(answer.body);
  return { ms: performance.now() - started, code: error.code ?? '', recoverable: error.recoverable === true };
}

t.test('a frozen owner: a push via the other node is SESSION_NOT_FOUND once the registry drops it, never a hang', async (t) => {
  const c = await cluster.add('node-c');
  const id = (await postJson(at(c, 'start'), {}, bearer(KEY))).body.session_id as string;
  t.equal((await postJson(at(b, 'push'), { session_id: id, chunk: '[' }, bearer(KEY))).body.state.buffered, '[', 'reached while node-c runs');
  c.child.kill('SIGSTOP');
  t.teardown(() => c.child.kill('SIGCONT'));
  const push = await timedPush(b, { session_id: id, chunk: '1' });
  t.equal(push.code, 'SESSION_NOT_FOUND');
  t.ok(push.ms < 2_000, `answered in ${Math.round(push.ms)} ms (registry TTL 1 s + a heartbeat + a check)`);
  const next = await timedPush(b, { session_id: id, chunk: '1' });
  // At once: well below the registry TTL the first push waited out (a busy machine adds some).
  t.ok(next.ms < 1_000, `the next push is answered at once (${Math.round(next.ms)} ms)`);
});

t.test('the owner killed: a push via the other node is SESSION_NOT_FOUND (recoverable) within 1 s, both contracts', async (t) => {
  const id = (await postJson(at(a, 'start'), {}, bearer(KEY))).body.session_id as string;
  const uuid = newUuid();
  await postJson(at(a, 'start'), { sessionId: uuid }, bearer(KEY));
  t.equal((await postJson(at(b, 'push'), { session_id: id, chunk: '[' }, bearer(KEY))).status, 200);
  t.equal((await postJson(at(b, 'push'), { sessionId: uuid, content: '[' }, bearer(KEY))).body.bufferedBytes, 1);
  await a.stop('SIGKILL');
  const envelope = await timedPush(b, { session_id: id, chunk: '1' });
  const compact = await timedPush(b, { sessionId: uuid, content: '1' });
  for (const [name, push] of [['envelope', envelope], ['compact', compact]] as const) {
    t.equal(push.code, 'SESSION_NOT_FOUND', name);
    t.ok(push.ms < 1_000, `${name}: answered in ${Math.round(push.ms)} ms`);
  }
  const compactAnswer = await postJson(at(b, 'push'), { sessionId: uuid, content: '1' }, bearer(KEY));
  t.equal(firstError(compactAnswer.body).recoverable, true, 'recoverable: start a new session');
  t.equal((await postJson(at(b, 'start'), { sessionId: uuid }, bearer(KEY))).status, 200, 'the dead owner\'s compact id can be started again at once');
});

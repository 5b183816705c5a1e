// repairStream survives losing its session: one that expired while the source paused
// (SESSION_TTL_MS short), and one whose server went away (stopped, and a new server started on the
// same port and DATA_DIR). A new session is sent the text so far; the result equals batch repair.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { Jsonmend, type StreamRestart, type StreamState } from 'jsonmend/client';
import { startServer } from '../helpers/start-server.js';

async function freePortBelowEphemeral(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const REPLY = 'Result:\n```json\n{"users": [{"name": "Ada", "langs": ["en", "fr"]}, {"name": "Grace", active: True}], "count": 2,\n```';
const chunksOf = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

t.test('a session that expires while the model pauses is replaced and replayed', async (t) => {
  const KEY = generateApiKey();
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, SESSION_TTL_MS: '150' });
  const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url });
  const chunks = chunksOf(REPLY, 20);
  async function* pausing(): AsyncGenerator<string> {
    for (let i = 0; i < chunks.length; i++) {
      if (i === 2 || i === 4) await sleep(600); // several TTLs: the session is swept
      yield chunks[i]!;
    }
  }
  const restarts: StreamRestart[] = [];
  const states: StreamState[] = [];
  const result = await jm.repairStream(pausing(), { mode: 'lenient', onRestart: (r) => restarts.push(r), onState: (s) => states.push(s) });
  // Each pause outlasts several TTLs, so each one costs a new session. On a busy machine a gap
  // between two other chunks can outlast the 150 ms TTL too: that is one more expiry, replaced the
  // same way, so the count is at least two and the two pauses' replays are among them.
  t.ok(restarts.length >= 2, `one new session per expiry (${restarts.length})`);
  t.ok(restarts.every((r) => r.error.code === 'SESSION_NOT_FOUND'));
  const replayed = restarts.map((r) => r.replayedChars);
  t.ok(replayed.includes(chunks.slice(0, 3).join('').length) && replayed.includes(chunks.slice(0, 5).join('').length), `everything read so far, the chunk in hand included (${replayed.join(', ')})`);
  t.not(restarts[0]!.sessionId, restarts[0]!.lostSessionId);
  t.equal(states.length, chunks.length, 'one state per chunk, restarts included');
  t.same(result, await jm.repair(REPLY, { mode: 'lenient' }), 'the same answer as batch repair of the whole text');
  t.same(result.repaired, { users: [{ name: 'Ada', langs: ['en', 'fr'] }, { name: 'Grace', active: true }], count: 2 });
});

t.test('expiry right before finalize: the new session gets the whole text, then finalizes', async (t) => {
  const KEY = generateApiKey();
  const server = await startServer(t, { API_KEYS: `${KEY}:unlimited`, SESSION_TTL_MS: '150' });
  const jm = new Jsonmend({ apiKey: KEY, baseUrl: server.url });
  async function* trailingPause(): AsyncGenerator<string> {
    yield* chunksOf(REPLY, 30);
    await sleep(600);
  }
  const restarts: StreamRestart[] = [];
  const result = await jm.repairStream(trailingPause(), { onRestart: (r) => restarts.push(r) });
  // The trailing pause expires the session; a slow gap earlier (busy machine) may add a restart.
  t.ok(restarts.length >= 1);
  t.equal(restarts.at(-1)!.replayedChars, REPLY.length, 'the last new session gets the whole text');
  t.same(result, await jm.repair(REPLY));
});

t.test('a session whose server went away is recovered on the new server (same port and DATA_DIR)', async (t) => {
  const KEY = generateApiKey();
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-client-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // A port named up front: uWS sets SO_REUSEADDR only then, and without it the first server's
  // connections in TIME_WAIT would keep the next one from listening for a minute. Below the
  // ephemeral range, so no client socket can take it while nothing listens.
  const port = String(await freePortBelowEphemeral());
  const env = { API_KEYS: `${KEY}:pro`, DATA_DIR: dataDir, PORT: port };
  const first = await startServer(t, env);
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  const jm = new Jsonmend({ apiKey: KEY, baseUrl: first.url, maxRetries: 20, retryBaseMs: 200, retryMaxDelayMs: 600 });
  const chunks = chunksOf(REPLY, 15);
  async function* acrossRestarts(): AsyncGenerator<string> {
    for (let i = 0; i < chunks.length; i++) {
      if (i === 3) {
        // Stopped and replaced before the next push: the new server knows nothing of the session.
        await first.stop();
        second = await startServer(t, env);
      }
      if (i === 6) {
        // Stopped, and the next push goes out while nothing listens: the new session is started
        // (with backoff) once the third server is up.
        await second!.stop();
        void sleep(300).then(() => startServer(t, env));
      }
      yield chunks[i]!;
    }
  }
  const restarts: StreamRestart[] = [];
  const result = await jm.repairStream(acrossRestarts(), { mode: 'lenient', onRestart: (r) => restarts.push(r) });
  t.same(restarts.map((r) => r.error.code), ['SESSION_NOT_FOUND', 'NETWORK_ERROR']);
  t.same(restarts.map((r) => r.replayedChars), [chunks.slice(0, 4).join('').length, chunks.slice(0, 7).join('').length]);
  t.same(result, await jm.repair(REPLY, { mode: 'lenient' }));
});

// `jsonmend repair --stream` as a real process fed the way a model's reply arrives: the input is read
// as it comes, and each chunk that grows the answer writes it as one NDJSON line before the next
// chunk is sent, the preview the real server's progressive session shows for the same chunks; the
// last line is the repaired JSON.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI, runCli } from '../helpers/run-cli.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';
import { repair } from '../../engine/index.js';

const KEY = 'cli-stream-key';
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const at = (endpoint: string): string => `${server.url}/v1/repair/stream/${endpoint}`;

const CHUNKS = ['Sure, here it is:\n```json\n{"name": "Ad', 'a Love', 'lace", "born": 18', '15, "tags": ["math"', ', "poetry"]}\n```\n', 'Anything else?'];

t.test('--stream writes a line per grown preview while stdin is still open', async (t) => {
  const child = spawn(process.execPath, [CLI, 'repair', '--stream'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The previews the service shows for the same chunks.
  const sessionId = (await postJson(at('start'), { preview: 'progressive', echo_buffer: false }, bearer(KEY))).body.session_id as string;
  let last = 'null';
  const seen: string[] = [];
  for (const chunk of CHUNKS) {
    child.stdin!.write(chunk);
    const preview = JSON.stringify((await postJson(at('push'), { session_id: sessionId, chunk }, bearer(KEY))).body.state.partial);
    if (preview === last || preview === 'null') continue;
    last = preview;
    // The line arrives before the next chunk is written: stdin is read as it arrives.
    const line = await Promise.race([lines.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no line for ${JSON.stringify(chunk)}`)), 20_000))]);
    t.equal(line.value, preview, `after ${JSON.stringify(chunk)}`);
    seen.push(line.value as string);
  }
  child.stdin!.end();
  const rest: string[] = [];
  for (let next = await lines.next(); next.done !== true; next = await lines.next()) rest.push(next.value);
  t.equal(await exited, 0);
  t.ok(seen.some((line) => line.includes('"name":"Ad"')), 'a string shows while it is written');
  t.notOk(seen.some((line) => line.includes('"born":18,') || line.includes('"born":18}')), 'no number shows half-written');
  const final = JSON.stringify(repair(CHUNKS.join('')).repaired);
  t.equal(JSON.stringify((await postJson(at('finalize'), { session_id: sessionId }, bearer(KEY))).body.repaired), final);
  t.equal([...seen, ...rest].at(-1), final, 'the last line is the repaired JSON');
  t.same(rest, [], 'the final value is not written twice');
});

t.test('--stream writes many previews without piling up listeners (no MaxListenersExceededWarning)', async (t) => {
  const child = spawn(process.execPath, [CLI, 'repair', '--stream'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const members = 30;
  for (let i = 0; i < members; i++) {
    // Each member completes one more value: one more preview line, written before the next chunk.
    child.stdin!.write(`${i === 0 ? '{' : ''}"k${i}": ${i}, `);
    const line = await lines.next();
    t.match(line.value, new RegExp(`"k${i}":${i}}$`), `preview ${i + 1}`);
  }
  child.stdin!.end('}');
  for (let next = await lines.next(); next.done !== true; next = await lines.next());
  t.equal(await exited, 0);
  t.notMatch(stderr, /MaxListeners|Warning/, `${members} previews, no warning`);
});

t.test('--stream with a truncated reply ends on finalize\'s value; --pretty is refused', async (t) => {
  const out = await runCli(['repair', '--stream'], { stdin: '{"a": [1, 2' });
  t.equal(out.code, 0);
  t.equal(out.stdout.trim().split('\n').at(-1), '{"a":[1,2]}');
  const pretty = await runCli(['repair', '--stream', '--pretty'], { stdin: '{}' });
  t.equal(pretty.code, 64);
  t.match(pretty.stderr, /--stream/);
});

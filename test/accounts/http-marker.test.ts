// The promise that raw input is never stored, through HTTP: requests carrying a unique marker in
// their inputs (inline and pooled repairs, schemas, both contracts, the demo, refused and invalid
// requests, the path, the query and the Authorization header) are served and logged at debug
// level; after SIGTERM has flushed everything, the marker is in no file under DATA_DIR, not on
// the server's stdout or stderr, and not in /metrics, while the metadata rows are all there.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStorage } from '../../server/accounts/storage/sqlite-storage.js';
import { startServer, postJson, type JsonAnswer } from '../helpers/start-server.js';
import { tempDataDir } from './helpers.js';
import { demo, newKey, repairAs } from './http-helpers.js';

const MARKER = `MRK${randomUUID().replaceAll('-', '')}`;
const KEY = newKey();

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function holds(bytes: Buffer, needle: string): boolean {
  return bytes.includes(needle, 0, 'utf8') || bytes.includes(needle, 0, 'utf16le');
}

t.test('a marker sent in inputs is nowhere in DATA_DIR, the logs or /metrics', async (t) => {
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, API_KEYS: `${KEY}:pro`, LOG_LEVEL: 'debug', DEMO_LIMIT_PER_HOUR: '100' });
  const url = server.url;
  const answers: JsonAnswer[] = [];
  const send = async (request: Promise<JsonAnswer>): Promise<void> => { answers.push(await request); };

  const texts = [
    `{"note": "${MARKER}", "n": 1}`,
    `Here is the JSON:\n\`\`\`json\n{name: '${MARKER}', tags: ['${MARKER}',], ok: True}\n\`\`\` hope it helps ${MARKER}`,
    `{"${MARKER}": [1, 2, 3`,
    `{"a": "${MARKER}, "b": NaN // ${MARKER}\n}`,
    MARKER,
    `[${JSON.stringify(MARKER)}, ${'{"pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, '.repeat(300)}`, // > 8 KB: the pool
  ];
  for (const text of texts) {
    await send(repairAs(url, KEY, { raw_output: text }));
    await send(repairAs(url, KEY, { content: text, mode: 'strict' }));
    await send(demo(url, { raw_output: text }));
  }
  const schema = { type: 'object', properties: { [MARKER]: { type: 'integer' }, kind: { enum: [MARKER.toLowerCase()] } }, required: [MARKER] };
  await send(repairAs(url, KEY, { raw_output: `{"${MARKER}": "12", "kind": "${MARKER}", "extra": "${MARKER}"}`, schema })); // coerced, enum, removed
  await send(repairAs(url, KEY, { raw_output: `{"${MARKER}": "not a number"}`, schema })); // SCHEMA_VALIDATION_FAILED
  await send(repairAs(url, KEY, { content: `{"kind": "x"}`, schema, mode: 'strict' })); // required field missing
  // Refused and invalid requests whose text could end up in an error code, a log line or a label.
  await send(repairAs(url, KEY, { raw_output: '{}', [MARKER]: MARKER }));
  await send(repairAs(url, KEY, { raw_output: '{}', mode: MARKER }));
  await send(repairAs(url, KEY, `not json ${MARKER}`));
  await send(repairAs(url, MARKER, { raw_output: MARKER }));
  await send(repairAs(url, `sk_live_${MARKER}`, { content: MARKER }));
  await send(postJson(`${url}/v1/repair?${MARKER}=${MARKER}`, { raw_output: MARKER }, { authorization: `Bearer ${KEY}` }));
  await send(postJson(`${url}/v1/${MARKER}`, { raw_output: MARKER }));
  const usage = await fetch(`${url}/v1/usage?${MARKER}`, { headers: { authorization: `Bearer ${KEY}` } });
  t.equal(usage.status, 200);
  t.equal(JSON.parse(await usage.text()).count, texts.length * 2 + 3 + 1, 'keyed repairs that reached the engine were counted; refused and invalid ones not');
  const logged = answers.length - 1 + 1; // every API request has a row: all but the 404, plus /v1/usage

  t.ok(answers.filter((a) => a.body.success === true || a.body.valid === true).length >= 15, 'most were repaired');
  t.ok(answers.some((a) => JSON.stringify(a.body).includes(MARKER)), 'the marker did reach the server and come back');
  const metrics = await (await fetch(`${url}/metrics`)).text();
  t.match(metrics, /jsonmend_requests_total\{route="repair"/);
  t.notOk(metrics.includes(MARKER), 'not in /metrics');

  t.same(await server.stop('SIGTERM'), { code: 0, signal: null }, 'SIGTERM: flushed and exited 0');
  const stdout = server.stdout();
  t.ok(stdout.split('"msg":"request"').length - 1 >= answers.length + 1, 'one log line per request was written');
  t.notOk(stdout.includes(MARKER), 'not on stdout');
  t.notOk(server.stderr().includes(MARKER), 'not on stderr');

  const storage = new SqliteStorage({ dataDir });
  t.equal(await storage.countMetadata(), logged, 'every request has its metadata row on disk');
  await storage.close();
  const files = filesUnder(dataDir);
  t.ok(files.some((f) => f.endsWith('jsonmend.sqlite')), `scanned: ${files.map((f) => f.slice(dataDir.length + 1)).join(', ')}`);
  const keyId = /"keyId":"(key_\w+)"/.exec(stdout)?.[1];
  t.ok(keyId !== undefined && files.some((f) => holds(readFileSync(f), keyId)), 'the scan does find what was written (the key id)');
  t.same(files.filter((f) => holds(readFileSync(f), MARKER)), [], 'the marker is in no file under DATA_DIR');
});

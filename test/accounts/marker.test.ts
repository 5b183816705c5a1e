// The promise that raw input is never stored (spec "What the service does" 6): requests whose
// inputs carry a unique marker are repaired and logged the way the server does, including misuse
// that tries to route text into logged fields, and the marker must appear in no database file.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { repair } from '../../engine/index.js';
import type { RepairMetadata } from '../../engine/types.js';
import { displayPrefix, generateApiKey, hashApiKey, newKeyId } from '../../server/accounts/api-key.js';
import { ManualClock } from '../../server/accounts/clock.js';
import { Accounts } from '../../server/accounts/index.js';
import { repairCountsOf } from '../../server/accounts/metadata/metadata-log.js';
import { dbPathFor } from '../../server/accounts/storage/sqlite-storage.js';
import { tempDataDir } from './helpers.js';

const MARKER = `MARKER${randomUUID().replaceAll('-', '')}`;

const inputs = [
  `{"note": "${MARKER}", "n": 1}`,
  `Here is the JSON:\n\`\`\`json\n{name: '${MARKER}', tags: ['${MARKER}',], ok: True}\n\`\`\` hope it helps ${MARKER}`,
  `{"${MARKER}": [1, 2, 3`,
  `{"a": "${MARKER}, "b": NaN // ${MARKER}\n}`,
  `${MARKER}`,
  `{"deep": {"x": "${MARKER.slice(0, 10)}`,
];

function files(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`].filter((f) => existsSync(f));
}

function hits(path: string, needle: string): string[] {
  return files(path).filter((f) => {
    const bytes = readFileSync(f);
    return bytes.includes(needle, 0, 'utf8') || bytes.includes(needle, 0, 'utf16le');
  });
}

t.test('a unique marker sent in inputs appears nowhere in the database files', async (t) => {
  // The default set-up: SQLite file in DATA_DIR, metadata written by the writer thread.
  const dataDir = tempDataDir(t);
  const clock = new ManualClock();
  const accounts = await Accounts.open({ dataDir, clock });
  const path = dbPathFor(dataDir);
  const key = generateApiKey();
  const keyId = newKeyId();
  await accounts.storage.createKey({ id: keyId, hash: hashApiKey(key), prefix: displayPrefix(key), name: 'marker test', tier: 'pro', createdAt: clock.now() });
  const log = accounts.metadata;
  const quota = accounts.quota;

  for (const input of inputs) {
    for (const schema of [undefined, { type: 'object', properties: { n: { type: 'integer' } } }]) {
      const started = performance.now();
      const response = repair(input, schema === undefined ? {} : { schema });
      const m = response.metadata;
      log.record({
        keyId, endpoint: '/v1/repair', contract: 'envelope', success: response.success,
        errorCode: m.errors[0]?.code ?? null, confidence: m.confidence, repairCounts: repairCountsOf(m),
        inputBytes: Buffer.byteLength(input), latencyMs: performance.now() - started,
      });
      quota.record(keyId);
    }
  }
  // A schema repair report carries input text in original_value; only its type may be counted.
  const reported: RepairMetadata = {
    confidence: 'medium', was_repaired: true, output_valid_json: true, repairs_applied: [], warnings: [], errors: [],
    syntax_repairs: [{ type: 'closed_string', confidence: 'high', safe: true, position: 4 }],
    schema_repairs: [{ type: 'enum_coercion', confidence: 'low', safe: false, field: `/${MARKER}`, original_value: MARKER, repaired_value: MARKER.toLowerCase() }],
  };
  // Misuse: text routed into every field a caller controls.
  log.record({
    keyId: MARKER, endpoint: `/v1/repair?${MARKER}`, contract: 'compact', success: false, errorCode: MARKER,
    confidence: 'low', repairCounts: { ...repairCountsOf(reported), [MARKER]: 1 }, inputBytes: 9, latencyMs: 1,
  });
  await log.flush();
  await quota.flush();
  t.equal(await accounts.storage.countMetadata(), inputs.length * 2 + 1);

  t.ok(files(path).some((f) => f.endsWith('-wal')), 'the WAL holds the fresh writes');
  t.ok(hits(path, keyId).length > 0, 'the scan does see text that was written (the key id)');
  t.same(hits(path, MARKER), [], 'marker absent from the database and its WAL');
  t.same(hits(path, MARKER.slice(6, 26)), [], 'no fragment of it either');
  await accounts.close(); // the last connection to close checkpoints the WAL into the main file
  t.same(hits(path, MARKER), [], 'still absent after the checkpoint');
});

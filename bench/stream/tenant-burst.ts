// `npm run build && node dist/bench/stream/tenant-burst.js [-- --sessions 14 --mb 5 --workers 1]`:
// one pro key opens `sessions` streaming sessions, fills each with `mb` MB (1 MB pushes, one at a
// time), then finalizes them all at once, while another tenant holds an open session. Reports how
// many finalized, how long that took, whether a streaming worker was stopped, and whether the other
// tenant's session came through whole (docs/streaming.md "One tenant's load"). Default
// TASK_TIMEOUT_MS. Bounded: one burst, then the server is stopped.
import { parseArgs } from 'node:util';
import { JSONMEND_MAIN, startServerProcess } from '../../support/server-process.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '14' }, mb: { type: 'string', default: '5' }, workers: { type: 'string', default: '1' } } });
const sessions = Number(values.sessions);
const mb = Number(values.mb);
const TENANT = 'bench-burst-tenant-pro';
const VICTIM = 'bench-burst-victim-free';
const server = await startServerProcess(JSONMEND_MAIN, { LOG_LEVEL: 'warn', WORKERS: values.workers!, API_KEYS: `${TENANT}:pro,${VICTIM}:free` }, 60_000);

async function post(endpoint: string, body: object, key: string): Promise<any> {
  const response = await fetch(`${server.url}/v1/repair/stream/${endpoint}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body),
  });
  return response.json();
}

async function metric(name: string): Promise<number> {
  const line = (await (await fetch(`${server.url}/metrics`)).text()).split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

try {
  const item = '{"name": "Ada", "tags": ["x", "y"], "n": 12.5, "open": [1, 2, 3], "text": "hello world"}, ';
  // Just under 1 MiB per push, so `mb` pushes stay under MAX_PAYLOAD_BYTES (5 MiB).
  const megabyte = item.repeat(Math.floor(1_040_000 / item.length));
  const victim = (await post('start', {}, VICTIM)).session_id as string;
  await post('push', { session_id: victim, chunk: '{"v": [1, 2' }, VICTIM);
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) {
    const id = (await post('start', {}, TENANT)).session_id as string;
    ids.push(id);
    for (let k = 0; k < mb; k++) {
      const pushed = await post('push', { session_id: id, chunk: (k === 0 ? '[' : '') + megabyte }, TENANT);
      if (pushed.state === undefined) throw new Error(`push refused: ${JSON.stringify(pushed).slice(0, 300)}`);
    }
    // Envelope sessions live SESSION_TTL_MS past their last activity: the victim stays active.
    await post('push', { session_id: victim, chunk: ' ' }, VICTIM);
  }
  const started = performance.now();
  const finals = await Promise.all(ids.map((id) => post('finalize', { session_id: id }, TENANT)));
  const seconds = (performance.now() - started) / 1000;
  const pushed = await post('push', { session_id: victim, chunk: ', 3]}' }, VICTIM);
  const final = await post('finalize', { session_id: victim }, VICTIM);
  const victimWhole = pushed.state !== undefined && JSON.stringify(final.repaired) === '{"v":[1,2,3]}';
  console.log(`${sessions} sessions of ${mb} MB finalized at once, WORKERS=${values.workers}`);
  console.log(`finalized: ${finals.filter((f) => f.success === true).length} of ${sessions} in ${seconds.toFixed(1)} s`);
  console.log(`streaming workers stopped: ${await metric('jsonmend_stream_worker_restarts_total')}`);
  console.log(`calls that waited for their account: ${await metric('jsonmend_stream_calls_waited_total')}`);
  console.log(`the other tenant's session: ${victimWhole ? 'intact' : `lost (${pushed.metadata?.errors?.[0]?.code ?? final.metadata?.errors?.[0]?.code})`}`);
} finally {
  await server.stop('SIGKILL');
}

// `npm run cluster:local` (dist/scripts/cluster-local.js): it starts Redis, PostgreSQL, two nodes and
// HAProxy, prints the address, a working key and the processes; Ctrl-C (SIGINT) stops every one of
// them and the script exits 0.
import t from 'tap';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers/run-cli.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test('cluster:local starts a cluster that answers, and Ctrl-C stops all of it', async (t) => {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'scripts', 'cluster-local.js'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  });
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops everything.')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`cluster:local did not become ready:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = /ready at (http:\/\/\S+)/.exec(out)![1]!;
  const key = /API key \(tier pro\): (\S+)/.exec(out)![1]!;
  const pids = Object.fromEntries([...(/processes: (.*)/.exec(out)![1]!).matchAll(/([\w-]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  t.same(Object.keys(pids).sort(), ['haproxy', 'node-1', 'node-2', 'postgres', 'redis']);
  for (const [name, pid] of Object.entries(pids)) t.ok(alive(pid), `${name} runs`);

  const repair = await fetch(`${url}/v1/repair`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"raw_output": "{a: 1,}"}' });
  t.same((await repair.json() as { repaired: unknown }).repaired, { a: 1 }, 'the printed key repairs through HAProxy');
  const start = await fetch(`${url}/v1/repair/stream/start`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
  const { session_id: sessionId } = await start.json() as { session_id: string };
  for (const chunk of ['{"a": [1,', ' 2]}']) {
    // HAProxy spreads the pushes over both nodes: a session is served by whichever node gets it.
    const push = await fetch(`${url}/v1/repair/stream/push`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ session_id: sessionId, chunk }) });
    t.ok((await push.json() as { state?: unknown }).state, 'a push through HAProxy');
  }

  child.kill('SIGINT');
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
  if (code !== 0) t.comment(out);
  t.equal(code, 0, 'exits 0 after Ctrl-C');
  t.match(out, /SIGINT: stopping/);
  for (const [name, pid] of Object.entries(pids)) t.notOk(alive(pid), `${name} (pid ${pid}) stopped`);
});

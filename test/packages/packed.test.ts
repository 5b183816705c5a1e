// The two published packages as a user gets them: `npm pack` of client/ and engine/, installed from
// the tarballs into an empty project. There, the client repairs and streams against the real
// server, the engine repairs in-process with the same result, the installed types type-check, and
// nothing of the server (uWS, SQLite, Redis, PostgreSQL clients, workers) was installed.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { installedManifest, packAndInstall } from '../helpers/packed-packages.js';
import { ROOT } from '../helpers/run-cli.js';
import { startServer } from '../helpers/start-server.js';

const KEY = generateApiKey();
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const project = await packAndInstall(t);
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

t.test('the tarballs are named and versioned as the repository', async (t) => {
  t.equal(project.tarballs['jsonmend-client'], `jsonmend-client-${root.version}.tgz`);
  t.equal(project.tarballs['jsonmend-engine'], `jsonmend-engine-${root.version}.tgz`);
  const client = installedManifest(project, 'jsonmend-client');
  t.same(client.dependencies ?? {}, {}, 'the client has no runtime dependencies');
  t.notOk(client.private, 'publishable');
  const engine = installedManifest(project, 'jsonmend-engine');
  t.notOk(engine.private, 'publishable');
  for (const [name, range] of Object.entries(engine.dependencies as Record<string, string>)) {
    t.equal(range, root.dependencies[name], `the engine's ${name} range is the server's`);
  }
  for (const name of ['jsonmend-client', 'jsonmend-engine']) {
    t.ok(existsSync(join(project.dir, 'node_modules', name, 'LICENSE')), `${name} ships the licence`);
    t.ok(existsSync(join(project.dir, 'node_modules', name, 'README.md')), `${name} ships its README`);
  }
});

t.test("nothing of the server's dependencies is installed", async (t) => {
  const engineDeps = new Set(Object.keys(installedManifest(project, 'jsonmend-engine').dependencies as object));
  const serverOnly = Object.keys(root.dependencies).filter((name) => !engineDeps.has(name));
  t.ok(serverOnly.length >= 5, `the server has its own dependencies: ${serverOnly.join(', ')}`);
  const installed = readdirSync(join(project.dir, 'node_modules')).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(project.dir, 'node_modules', name)).map((sub) => `${name}/${sub}`) : [name]);
  for (const name of [...serverOnly, 'uWebSockets.js']) t.notOk(installed.includes(name), `${name} is not installed`);
});

t.test('the installed client repairs and streams against the server; the installed engine agrees', async (t) => {
  writeFileSync(join(project.dir, 'smoke.mjs'), `
import { Jsonmend, JsonmendError } from 'jsonmend-client';
import { repair } from 'jsonmend-engine';
const jm = new Jsonmend({ apiKey: process.env.JSONMEND_KEY, baseUrl: process.env.JSONMEND_URL, maxRetries: 0 });
const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
const text = 'Sure!\\n\`\`\`json\\n{name: "Ada", age: "36", tags: ["a", "b",],\\n\`\`\`';
const batch = await jm.repair(text, { schema, mode: 'lenient' });
const states = [];
const chunks = text.match(/[\\s\\S]{1,7}/g);
const streamed = await jm.repairStream(chunks, { schema, mode: 'lenient', onState: (s) => states.push(s) });
const local = repair(text, { schema, mode: 'lenient' });
let refused = null;
try { await new Jsonmend({ apiKey: 'sk_live_wrong', baseUrl: process.env.JSONMEND_URL, maxRetries: 0 }).repair('{}'); } catch (e) { refused = e instanceof JsonmendError ? e.code : String(e); }
console.log(JSON.stringify({ batch, streamed, local, states: states.length, chunks: chunks.length, refused }));
`);
  const out = JSON.parse(await project.node('smoke.mjs', { JSONMEND_URL: server.url, JSONMEND_KEY: KEY }));
  t.equal(out.batch.success, true);
  t.same(out.batch.repaired, { name: 'Ada', age: 36, tags: ['a', 'b'] });
  t.same(out.streamed.repaired, out.batch.repaired, 'the stream ends with the batch repair');
  t.same(out.local.repaired, out.batch.repaired, 'the engine in-process repairs as the server does');
  t.same(out.local.metadata.repairs_applied, out.batch.metadata.repairs_applied);
  t.equal(out.states, out.chunks, 'a state per chunk');
  t.equal(out.refused, 'INVALID_API_KEY');
});

t.test("the installed packages' types check in a strict TypeScript project", async (t) => {
  writeFileSync(join(project.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noEmit: true },
    files: ['check.ts'],
  }));
  writeFileSync(join(project.dir, 'check.ts'), `
import { Jsonmend, type RepairResponse, type Confidence } from 'jsonmend-client';
import { repair, createStream, type StreamState } from 'jsonmend-engine';
const jm = new Jsonmend({ apiKey: 'sk_live_x' });
export async function f(): Promise<Confidence | undefined> {
  const r: RepairResponse = await jm.repair('{a: 1}', { mode: 'strict' });
  // @ts-expect-error: the text must be a string (fails if the package's types were missing: any)
  await jm.repair(42);
  const s: StreamState = createStream().push('{');
  return s.brace_depth > 0 ? repair('{').metadata.repairs_applied[0]?.confidence : r.metadata.repairs_applied[0]?.confidence;
}
`);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await promisify(execFile)(process.execPath, [tsc, '-p', project.dir]).then(() => '', (e: { stdout: string }) => e.stdout);
  t.equal(result, '', 'no type errors');
});

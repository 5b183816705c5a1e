// Every file in examples/ runs against the real server, as a user would run it: curl.sh with sh and
// curl, the Node examples in a project that installed the packed jsonmend-client tarball, the
// Python examples with the clients/python package. Each one's output is checked, and a file in
// examples/ that this test does not run fails it.
import t from 'tap';
import { execFile } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { packAndInstall } from '../helpers/packed-packages.js';
import { ROOT } from '../helpers/run-cli.js';
import { startServer } from '../helpers/start-server.js';
import { completion, ScriptedUpstream, sseText, streamChunks, writeJson, writeSse } from '../../support/scripted-upstream.js';

const EXAMPLES = join(ROOT, 'examples');
const run = promisify(execFile);
const KEY = generateApiKey();
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` });
const env = { ...process.env, JSONMEND_URL: server.url, JSONMEND_KEY: KEY, PYTHONPATH: join(ROOT, 'clients', 'python', 'src'), PYTHONDONTWRITEBYTECODE: '1' };
const project = await packAndInstall(t);

/** A line with its JSON (the whole line, or a value ending it) written compactly: Python's json.dumps spaces it. */
function compact(line: string): string {
  const at = line.search(/[[{]/);
  if (at === -1) return line;
  try {
    return line.slice(0, at) + JSON.stringify(JSON.parse(line.slice(at)));
  } catch {
    return line;
  }
}

const ran = new Set<string>();
async function example(file: string): Promise<string[]> {
  ran.add(file);
  const path = join(EXAMPLES, file);
  const [command, args, cwd] = file.endsWith('.sh') ? ['sh', [path], ROOT]
    : file.endsWith('.py') ? ['python3', [path], ROOT]
    : (copyFileSync(path, join(project.dir, file.replace(/\//g, '-'))), [process.execPath, [file.replace(/\//g, '-')], project.dir]);
  const { stdout } = await run(command as string, args as string[], { cwd: cwd as string, env, timeout: 60_000 });
  return stdout.trim().split('\n');
}

t.test('curl.sh: a batch repair with a schema, the demo, a streaming session', async (t) => {
  const lines = (await example('curl.sh')).map((line) => JSON.parse(line));
  t.same(lines[0].repaired, { name: 'Ada', age: 36, langs: ['en'] });
  t.equal(lines[0].metadata.confidence, 'medium');
  t.same([lines[1].demo, lines[1].repaired], [true, { a: 1, b: true }]);
  t.equal(lines[2].state.in_string, true, 'the first push ends inside a string');
  t.same(lines[4].repaired, { city: 'Paris', sights: ['Louvre'] });
});

const ADA = { name: 'Ada Lovelace', born: 1815, fields: ['mathematics', 'computing'], notable: true };
const PLANETS = { planets: [{ name: 'Mercury', moons: 0 }, { name: 'Venus', moons: 0 }, { name: 'Earth', moons: 1 }] };
const INVOICE = { number: 'INV-7', total: 42.5, paid: false, lines: [{ item: 'pens', qty: 3 }, { item: 'paper', qty: 2 }] };

for (const [node, python] of [['node/repair.mjs', 'python/repair.py'], ['node/stream-deltas.mjs', 'python/stream_deltas.py'], ['node/extract.mjs', 'python/extract.py']] as const) {
  t.test(`${node} and ${python} print the same`, async (t) => {
    const [fromNode, fromPython] = [await example(node), await example(python)];
    t.same(fromPython.map(compact), fromNode.map(compact), 'the two clients answer alike');
    if (node === 'node/repair.mjs') {
      t.same(JSON.parse(fromNode[0]!), ADA);
      t.equal(fromNode[1], 'confidence: high');
      t.match(fromNode.slice(2).join('\n'), /- removed_markdown_fence \(high\) at \d+\n- converted_single_quotes/);
    } else if (node === 'node/stream-deltas.mjs') {
      t.match(fromNode.at(-1), /^\d+ chunks streamed; repaired: /);
      t.same(JSON.parse(fromNode.at(-1)!.replace(/^.*repaired: /, '')), PLANETS);
      t.ok(fromNode.length >= 3, 'progress lines');
    } else {
      t.same(JSON.parse(fromNode[0]!), INVOICE);
      t.ok(fromNode.includes('- type_coercion /total: "42.50" -> 42.5'));
      t.ok(fromNode.includes('- removed_extra_field /note: "ignore me" -> (removed)'));
      t.equal(fromNode.at(-1), 'without total and lines: success=false, SCHEMA_VALIDATION_FAILED');
    }
  });
}

t.test('node/gateway.mjs: the openai client through the gateway, healed whole and streamed', async (t) => {
  // A model that writes the arguments as Python would, with a trailing comma and the days as a string.
  const upstream = await ScriptedUpstream.start();
  t.teardown(() => upstream.close());
  const call = [{ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: "{'city': 'Paris', 'days': '3',}" }] }];
  upstream.script('gpt-4o-mini', (req, res) => (req.body['stream'] === true
    ? writeSse(res, [sseText(streamChunks(call, (s) => s.match(/.{1,5}/gs) ?? [], 'gpt-4o-mini'))])
    : writeJson(res, 200, completion(call, 'gpt-4o-mini'))));
  const gateway = await startServer(t, { API_KEYS: `${KEY}:unlimited`, UPSTREAM_URL: upstream.url });
  ran.add('node/gateway.mjs');
  // Run in place: `openai` resolves from the repository's node_modules (a user installs it).
  const { stdout } = await run(process.execPath, [join(EXAMPLES, 'node', 'gateway.mjs')], { cwd: ROOT, env: { ...env, JSONMEND_URL: gateway.url }, timeout: 60_000 });
  const lines = stdout.trim().split('\n');
  t.equal(lines[0], '{"city":"Paris","days":3}');
  t.equal(lines[1], 'confidence: medium');
  t.ok(lines.includes('- get_weather: converted_single_quotes (high)'), lines.join('\n'));
  t.ok(lines.includes('- get_weather: type_coercion (medium)'));
  t.equal(lines.at(-1), 'streamed: {"city":"Paris","days":3}');
});

t.test('every example was run', async (t) => {
  const files = (readdirSync(EXAMPLES, { recursive: true }) as string[])
    .filter((f) => /\.(sh|mjs|js|py|ts)$/.test(f)).map((f) => relative('.', f));
  t.same(files.sort(), [...ran].sort());
});

// The `jsonmend` command as a real process: `repair` (stdin or a file; exit codes 0, 1, 2, 64, 65 and
// what goes to stdout and stderr), `--help`, `serve` (the real server), and `npx jsonmend`.
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, runCli, type CliRun } from '../helpers/run-cli.js';

const jsonmend = (args: string[], stdin = '', env: Record<string, string> = {}): Promise<CliRun> => runCli(args, { stdin, env });

const dir = mkdtempSync(join(tmpdir(), 'jsonmend-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const PERSON = file('person.schema.json', JSON.stringify({
  type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'],
}));

t.test('repair from stdin: the repaired JSON on stdout, exit 0, nothing on stderr', async (t) => {
  const out = await jsonmend(['repair'], "Sure! ```json\n{name: 'Ada', tags: ['x',],\n```");
  t.equal(out.code, 0);
  t.equal(out.stdout, '{"name":"Ada","tags":["x"]}\n');
  t.equal(out.stderr, '');
  t.equal((await jsonmend(['repair', '-'], '[1, 2')).stdout, '[1,2]\n', '- is stdin');
});

t.test('repair FILE, --pretty, --schema, --mode', async (t) => {
  const reply = file('reply.txt', '{"name": "Ada", "age": "36", "extra": true');
  const pretty = await jsonmend(['repair', reply, '--pretty']);
  t.equal(pretty.stdout, '{\n  "name": "Ada",\n  "age": "36",\n  "extra": true\n}\n');
  const strict = await jsonmend(['repair', reply, '--schema', PERSON]);
  t.equal(strict.code, 0);
  t.same(JSON.parse(strict.stdout), { name: 'Ada', age: 36 }, 'coerced, extra member dropped (strict)');
  const lenient = await jsonmend(['repair', reply, '--schema', PERSON, '--mode', 'lenient']);
  t.same(JSON.parse(lenient.stdout), { name: 'Ada', age: 36, extra: true });
});

t.test('nothing repairable: the error on stderr, nothing on stdout, exit 1', async (t) => {
  const none = await jsonmend(['repair'], 'I could not produce any JSON, sorry.');
  t.equal(none.code, 1);
  t.equal(none.stdout, '');
  t.match(none.stderr, /UNRECOVERABLE_SYNTAX_ERROR: No JSON value was found/);
  const schema = await jsonmend(['repair', '--schema', PERSON], '{"name": "Ada"}');
  t.equal(schema.code, 1);
  t.match(schema.stderr, /SCHEMA_VALIDATION_FAILED/);
});

t.test('--report: the full envelope, also for a failure', async (t) => {
  const ok = await jsonmend(['repair', '--report'], '{"a": NaN}');
  t.equal(ok.code, 0);
  const envelope = JSON.parse(ok.stdout);
  t.match(envelope, { success: true, repaired: { a: null }, metadata: { confidence: 'medium', was_repaired: true } });
  t.ok(envelope.metadata.warnings.some((w: { code: string }) => w.code === 'NAN_REPLACED'));
  const failed = await jsonmend(['repair', '--report', '--schema', PERSON], '{"name": 1}');
  t.equal(failed.code, 1);
  const failure = JSON.parse(failed.stdout);
  t.equal(failure.success, false);
  t.equal(failure.metadata.errors[0].code, 'SCHEMA_VALIDATION_FAILED');
  t.notOk('compact_code' in failure.metadata.errors[0], 'the envelope as the service sends it');
});

t.test('--min-confidence: exit 2 below it, the JSON still printed', async (t) => {
  const below = await jsonmend(['repair', '--min-confidence', 'high'], '{"a": NaN}');
  t.equal(below.code, 2);
  t.equal(below.stdout, '{"a":null}\n');
  t.match(below.stderr, /confidence medium is below --min-confidence high/);
  t.equal((await jsonmend(['repair', '--min-confidence', 'medium'], '{"a": NaN}')).code, 0);
  t.equal((await jsonmend(['repair', '--min-confidence', 'high'], '{"a": 1,}')).code, 0, 'a high-confidence repair');
  // a reply cut off inside a string (the model's token limit): TRUNCATED_OUTPUT makes it medium
  const cut = await jsonmend(['repair', '--min-confidence', 'high'], '{"summary": "The quarter closed with rev');
  t.equal(cut.code, 2, 'a reply cut inside a string is caught');
  t.equal((await jsonmend(['repair', '--min-confidence', 'high'], '{"a": [1, 2]')).code, 0, 'cut between values: nothing guessed');
});

t.test('bad usage: a message and exit 64', async (t) => {
  for (const args of [['repair', '--mode', 'loose'], ['repair', '--min-confidence', 'sure'], ['repair', '--nope'], ['repair', 'a', 'b'],
    ['repair', join(dir, 'missing.txt')], ['repair', '--schema', file('bad.json', '{nope')], ['frobnicate']]) {
    const out = await jsonmend(args, '{}');
    t.equal(out.code, 64, args.join(' '));
    t.equal(out.stdout, '');
    t.ok(out.stderr.length > 0);
  }
});

t.test('a schema file that is JSON but not a valid schema: its own exit 65, before any input is read', async (t) => {
  for (const [name, schema, reason] of [
    ['type-5.json', '{"type": 5}', /schema\/type must be/],
    ['array.json', '[{"type": "object"}]', /a schema must be a JSON object or a boolean/],
    ['draft.json', '{"$schema": "https://example.com/my-draft"}', /unsupported \$schema/],
  ] as const) {
    for (const stream of [[], ['--stream']]) {
      const out = await jsonmend(['repair', ...stream, '--schema', file(name, schema)], '{"a": 1}');
      t.equal(out.code, 65, `${name} ${stream.join(' ')}`);
      t.equal(out.stdout, '');
      t.match(out.stderr, new RegExp(`--schema .*${name} is not a valid JSON Schema: `));
      t.match(out.stderr, reason);
    }
  }
  const valid = await jsonmend(['repair', '--schema', file('true.json', 'true')], '{"a": 1}');
  t.equal(valid.code, 0, 'true is a schema');
  t.match((await jsonmend(['--help'])).stdout, /65 the --schema file is not a valid/);
});

t.test('output: a reader that closes the pipe early is no error; a write that fails is exit 74', async (t) => {
  const big = file('big.json', JSON.stringify(Array.from({ length: 50_000 }, (_, i) => ({ i, s: 'x'.repeat(40) }))));
  const early = await new Promise<CliRun>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'repair', '--pretty', big], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout!.once('data', () => child.stdout!.destroy()); // like `| head -c 100`
    child.once('exit', (code) => resolve({ code, stdout: '', stderr }));
  });
  t.equal(early.code, 0);
  t.equal(early.stderr, '', 'no EPIPE stack trace');
  if (process.platform === 'linux') {
    const full = await new Promise<CliRun>((resolve) => {
      const child = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" repair "${big}" > /dev/full`], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.once('exit', (code) => resolve({ code, stdout: '', stderr }));
    });
    t.equal(full.code, 74);
    t.match(full.stderr, /cannot write the output: ENOSPC/);
  }
});

t.test('--help lists every command and option', async (t) => {
  const help = await jsonmend(['--help']);
  t.equal(help.code, 0);
  for (const word of ['repair [FILE]', '--schema', '--mode', '--report', '--pretty', '--min-confidence', 'serve', 'key create', 'key list', 'key revoke']) {
    t.ok(help.stdout.includes(word), word);
  }
  t.match((await jsonmend(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
});

t.test('serve: the HTTP service (what npm start runs)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-cli-serve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WORKERS: '1', LOG_LEVEL: 'warn', DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => { child.kill('SIGKILL'); });
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on": ${stdout}`)), 20_000);
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match !== null) { clearTimeout(timer); resolve(match[1]!); }
    });
  });
  const answer = await (await fetch(`${url}/v1/demo/repair`, { method: 'POST', body: JSON.stringify({ raw_output: '{a: 1' }) })).json();
  t.same(answer.repaired, { a: 1 });
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'stops cleanly on SIGTERM');
  const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { scripts: Record<string, string>; bin: Record<string, string> };
  t.equal(pkg.scripts['start'], 'node dist/cli/jsonmend.js serve', 'npm start runs jsonmend serve');
  t.equal(pkg.bin['jsonmend'], 'dist/cli/jsonmend.js');
});

t.test('npx jsonmend works inside the project', async (t) => {
  const out = await new Promise<CliRun>((resolve) => {
    const child = execFile('npx', ['--offline', 'jsonmend', 'repair'], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? null, stdout, stderr });
    });
    child.stdin!.end('[1, 2,');
  });
  t.equal(out.code, 0, out.stderr);
  t.equal(out.stdout, '[1,2]\n');
});

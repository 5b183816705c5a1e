// The operator CLI as a real process (`node dist/cli/jsonmend.js key`, what `npm run key` runs) against a
// real SQLite file, with a server-side CachedKeyStore in this process watching the same file.
import t from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hashApiKey } from '../../server/accounts/api-key.js';
import { CachedKeyStore } from '../../server/accounts/cached-key-store.js';
import { systemClock } from '../../server/accounts/clock.js';
import { openStorage, sleep, tempDataDir } from './helpers.js';
import { keyCli as key, KEY_LINE } from './http-helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'dist', 'cli', 'jsonmend.js');
const run = promisify(execFile);

// Build if dist is missing or older than the sources (errors elsewhere in the tree do not stop tsc emitting).
const sources = ['cli/key.ts', 'cli/jsonmend.ts', 'server/accounts/storage/sqlite-storage.ts', 'server/accounts/api-key.ts'].map((p) => join(root, p));
if (!existsSync(cli) || sources.some((s) => statSync(s).mtimeMs > statSync(cli).mtimeMs)) {
  try { execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' }); } catch { /* see above */ }
}

const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

async function within(ms: number, condition: () => boolean): Promise<number> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > ms) return Infinity;
    await sleep(10);
  }
  return performance.now() - start;
}

t.test('create prints the key as the last line; only its hash is stored', async (t) => {
  const dataDir = join(tempDataDir(t), 'nested', 'data'); // created if missing
  const out = await key(dataDir, 'create', '--tier', 'pro', '--name', 'ci bot');
  t.equal(out.code, 0, out.stderr);
  const created = lastLine(out.stdout);
  t.match(created, KEY_LINE);
  t.equal(out.stdout.split(created).length, 2, 'shown exactly once');
  const storage = openStorage(t, dataDir);
  const row = await storage.findKeyByHash(hashApiKey(created));
  t.equal(row?.tier, 'pro');
  t.equal(row?.name, 'ci bot');
  t.equal(row?.prefix, created.slice(0, 12));
  const list = await key(dataDir, 'list');
  t.equal(list.code, 0);
  t.match(list.stdout, /prefix\s+id\s+name\s+tier\s+created\s+last used\s+revoked/);
  t.match(list.stdout, new RegExp(`${created.slice(0, 12)}\\s+key_\\w+\\s+ci bot\\s+pro\\s+\\d{4}-\\d\\d-\\d\\dT`));
  t.notMatch(list.stdout, created, 'list never shows the key');
});

t.test('a running key store sees CLI creates and revokes within a second', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir);
  const store = new CachedKeyStore({ storage, clock: systemClock });
  await store.refresh();
  store.start();
  t.teardown(() => store.close());

  const out = await key(dataDir, 'create', '--tier', 'team');
  const created = lastLine(out.stdout);
  t.match(created, KEY_LINE);
  const seenAfter = await within(1_000, () => store.lookup(created) !== undefined);
  t.ok(seenAfter < 1_000, `created key accepted ${seenAfter.toFixed(0)} ms after the CLI exited`);
  t.equal(store.lookup(created)?.tier, 'team');

  const revoked = await key(dataDir, 'revoke', created.slice(0, 12));
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, /Revoked sk_live_/);
  const goneAfter = await within(1_000, () => store.lookup(created) === undefined);
  t.ok(goneAfter < 1_000, `revoked key refused ${goneAfter.toFixed(0)} ms after the CLI exited`);
  const list = await key(dataDir, 'list');
  t.match(list.stdout, new RegExp(`${created.slice(0, 12)}.*team.*\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s*$`, 'm'), 'revoked time listed');
});

t.test('usage errors: clear message, non-zero exit, no key printed', async (t) => {
  const dataDir = tempDataDir(t);
  const noTier = await key(dataDir, 'create');
  t.equal(noTier.code, 2);
  t.match(noTier.stderr, /--tier/);
  t.equal(noTier.stdout, '');
  const badTier = await key(dataDir, 'create', '--tier', 'gold');
  t.equal(badTier.code, 2);
  const unknown = await key(dataDir, 'revoke', 'sk_live_none');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /No active key/);
  const noCommand = await key(dataDir);
  t.equal(noCommand.code, 2);
  t.match(noCommand.stderr, /usage:/);
});

t.test('--help and -h print the usage on stdout and exit 0, whatever else is given', async (t) => {
  const dataDir = tempDataDir(t);
  for (const args of [['--help'], ['-h'], ['create', '--help'], ['revoke', '-h'], ['list', '--help']]) {
    const help = await key(dataDir, ...args);
    t.equal(help.code, 0, args.join(' '));
    t.match(help.stdout, /usage:\n  jsonmend key create/, `${args.join(' ')}: the usage on stdout`);
    t.equal(help.stderr, '', `${args.join(' ')}: nothing on stderr`);
  }
});

t.test('`npm run key -- create` ends with the key (npm prints nothing after it)', async (t) => {
  const dataDir = tempDataDir(t);
  const { stdout } = await run('npm', ['run', 'key', '--', 'create', '--tier', 'free'], {
    cwd: root, env: { ...process.env, DATA_DIR: dataDir },
  });
  t.match(lastLine(stdout), KEY_LINE);
});

t.test('`npm run key` runs the compiled CLI without building (it starts in well under a second)', async (t) => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts['key'], 'node dist/cli/jsonmend.js key', 'an alias of `jsonmend key`');
  t.equal(pkg.scripts['prekey'], undefined, 'no build hook before it');
  const dataDir = tempDataDir(t);
  await key(dataDir, 'create', '--tier', 'free', '--name', 'same');
  const viaNpm = await run('npm', ['run', '--silent', 'key', '--', 'list'], { cwd: root, env: { ...process.env, DATA_DIR: dataDir } });
  t.equal(viaNpm.stdout, (await key(dataDir, 'list')).stdout, 'the same output as jsonmend key list');
});

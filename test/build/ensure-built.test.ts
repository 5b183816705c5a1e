// scripts/ensure-built.mjs: `npm start`, `npm test` and the benches build only when the sources
// changed since the last build. Checked on a small tree of its own (a fake build that counts its
// runs), so the test never runs tsc.
import t, { type Test } from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/run-cli.js';
// @ts-expect-error: plain JavaScript without declarations (it runs before tsc output exists)
import { isFresh, writeStamp } from '../../scripts/ensure-built.mjs';

const fresh = isFresh as (root: string) => boolean;
const stamp = writeStamp as (root: string) => void;

/** A checkout in miniature: two sources, the configs, the entry points, and a build that counts. */
function tree(t: Test): string {
  const root = t.testdir({
    engine: { 'a.ts': 'export const a = 1;\n' },
    server: { 'b.ts': 'export const b = 2;\n' },
    web: { 'tsconfig.json': '{}\n' },
    'tsconfig.json': '{}\n',
    'package.json': JSON.stringify({
      type: 'module',
      scripts: {
        // The fake build: append a line per run, create the entry points, stamp like the real one.
        build: "node -e \"const f=require('node:fs');f.appendFileSync('builds','x');f.mkdirSync('dist/cli',{recursive:true});f.mkdirSync('dist/server',{recursive:true});f.writeFileSync('dist/cli/jsonmend.js','');f.writeFileSync('dist/server/main.js','')\" && node scripts/ensure-built.mjs --stamp",
      },
    }),
  });
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(ROOT, 'scripts/ensure-built.mjs'), join(root, 'scripts/ensure-built.mjs'));
  return root;
}

function builds(root: string): number {
  try {
    return readFileSync(join(root, 'builds'), 'utf8').length;
  } catch {
    return 0;
  }
}

function ensure(root: string, ...args: string[]) {
  return spawnSync(process.execPath, ['scripts/ensure-built.mjs', ...args], { cwd: root, encoding: 'utf8' });
}

t.test('fresh after a build, stale after a source changes, fresh again after the next build', async (t) => {
  const root = tree(t);
  t.equal(ensure(root).status, 0, 'no dist/ yet: builds');
  t.equal(builds(root), 1);
  t.equal(ensure(root).status, 0);
  t.equal(builds(root), 1, 'nothing changed: no second build');
  t.equal(ensure(root, '--check').stdout, 'fresh\n');

  writeFileSync(join(root, 'engine/a.ts'), 'export const a = 3;\n');
  const check = ensure(root, '--check');
  t.equal(check.stdout, 'stale\n');
  t.equal(check.status, 1, '--check exits 1 when stale');
  t.equal(builds(root), 1, '--check never builds');
  t.equal(ensure(root).status, 0);
  t.equal(builds(root), 2, 'the changed source was built');
  t.equal(ensure(root).status, 0);
  t.equal(builds(root), 2);
});

t.test('the stamp follows contents, not times', async (t) => {
  const root = tree(t);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root });
  t.ok(fresh(root));
  const old = new Date(Date.now() - 86_400_000);
  utimesSync(join(root, 'server/b.ts'), old, old);
  t.ok(fresh(root), 'an older mtime with the same contents is still fresh');
  writeFileSync(join(root, 'server/b.ts'), 'export const b = 20;\n');
  utimesSync(join(root, 'server/b.ts'), old, old);
  t.notOk(fresh(root), 'an edit stamped with an old time is stale');
  stamp(root);
  t.ok(fresh(root));
  writeFileSync(join(root, 'server/new-module.ts'), 'export {};\n');
  t.notOk(fresh(root), 'a new source file is stale');
  stamp(root);
  writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}\n');
  t.notOk(fresh(root), 'a changed tsconfig is stale');
  stamp(root);
  rmSync(join(root, 'dist/server/main.js'));
  t.notOk(fresh(root), 'a missing entry point is stale');
});

t.test('the repository\'s scripts check the stamp instead of building every time', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.match(scripts.build!, /ensure-built\.mjs --stamp$/, 'the build writes the stamp last');
  t.equal(scripts.prepare, 'npm run build', 'a build once after install');
  for (const name of ['prestart', 'pretest']) t.equal(scripts[name], 'node scripts/ensure-built.mjs', name);
  for (const [name, command] of Object.entries(scripts)) {
    if (name !== 'prepare') t.notMatch(command, /npm run build/, `${name} does not rebuild unconditionally`);
  }
});

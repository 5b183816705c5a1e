// DATA_DIR is made at start-up by every process of a PROCESSES=N server at once: a folder another
// process made between makeDataDir's look and its mkdir is there as wanted (makeFolder), while a
// file in its place, or a path that cannot be made, still fails the start with the system's error.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { makeDataDir, makeFolder } from '../../server/accounts/storage/data-dir.js';

t.test('missing parents are made; an existing folder is fine; a file in the way is an error', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'jm-datadir-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const deep = join(root, 'a', 'b', 'c');
  makeDataDir(deep);
  t.ok(statSync(deep).isDirectory());
  makeDataDir(deep);
  const file = join(root, 'file');
  writeFileSync(file, 'x');
  t.throws(() => makeDataDir(join(file, 'below')), { code: 'ENOTDIR' });
});

t.test('a folder made by another process meanwhile: makeFolder takes it as made; a file there is EEXIST', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'jm-datadir-race-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'data');
  mkdirSync(dir); // the other process won the race
  t.doesNotThrow(() => makeFolder(dir));
  t.ok(statSync(dir).isDirectory());
  const file = join(root, 'taken');
  writeFileSync(file, 'x');
  t.throws(() => makeFolder(file), { code: 'EEXIST' });
});

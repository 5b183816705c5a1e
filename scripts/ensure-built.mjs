// Builds only when the TypeScript sources changed since the last build, so `npm start`, `npm test`
// and the benches serve dist/ at once instead of compiling again (a full tsc run is 10-20 s).
//   node scripts/ensure-built.mjs           build if stale (or dist/ is missing), else do nothing
//   node scripts/ensure-built.mjs --stamp   record the sources just built (the end of `npm run build`)
//   node scripts/ensure-built.mjs --check   print "fresh" or "stale"; exit 0 when fresh, 1 when stale
// Plain JavaScript because it runs before any tsc output exists. The stamp is a hash of the contents
// (not mtimes), so a checkout that rewrites files without changing them does not force a build,
// and an edit with an old mtime (a `git stash pop`, a copy) still does.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What `npm run build` compiles (tsconfig.json and web/tsconfig.json), plus those configs. */
export const SOURCE_FOLDERS = ['engine', 'server', 'client', 'cli', 'web', 'support', 'bench', 'scripts'];
export const SOURCE_FILES = ['tsconfig.json', 'web/tsconfig.json', 'package.json'];
export const STAMP = 'dist/.sources-stamp';
const SKIP = new Set(['node_modules', 'dist', 'results']);

function collect(root, folder, out) {
  let entries;
  try {
    entries = readdirSync(join(root, folder), { withFileTypes: true });
  } catch {
    return; // a folder a checkout does not have contributes nothing
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) collect(root, path, out);
    } else if (entry.name.endsWith('.ts') || entry.name.endsWith('.mts')) {
      out.push(path);
    }
  }
}

/** A hash of every source's path and contents, in a fixed order. */
export function sourcesHash(root) {
  const files = [];
  for (const folder of SOURCE_FOLDERS) collect(root, folder, files);
  files.push(...SOURCE_FILES.filter((file) => existsSync(join(root, file))));
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

export function writeStamp(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, STAMP), `${sourcesHash(root)}\n`);
}

/** Fresh when the stamp matches the sources and the entry points the scripts run exist. */
export function isFresh(root, entries = ['dist/cli/jsonmend.js', 'dist/server/main.js']) {
  let stamp;
  try {
    stamp = readFileSync(join(root, STAMP), 'utf8').trim();
  } catch {
    return false;
  }
  return stamp === sourcesHash(root) && entries.every((entry) => existsSync(join(root, entry)));
}

function main() {
  const root = join(fileURLToPath(import.meta.url), '..', '..');
  const mode = process.argv[2];
  if (mode === '--stamp') {
    writeStamp(root);
    return 0;
  }
  const fresh = isFresh(root);
  if (mode === '--check') {
    process.stdout.write(fresh ? 'fresh\n' : 'stale\n');
    return fresh ? 0 : 1;
  }
  if (fresh) return 0;
  process.stderr.write(`jsonmend: sources changed since the last build (${relative(process.cwd(), join(root, STAMP)) || STAMP}); building\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' }).status ?? 1;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();

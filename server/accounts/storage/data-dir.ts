// Creates DATA_DIR and any missing parents, one level at a time. Node's recursive mkdir loops
// forever at 100% CPU on some paths (under /proc it keeps retrying ENOENT), so the start would hang
// with no output; made by hand, an impossible path fails at once with the system's error.
// With PROCESSES=N every process starts at once and makes the same folders: one made by another
// process between the look and the mkdir (EEXIST, a folder now) is there, as wanted.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let dir = resolve(dataDir); !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break; // the root itself is missing: let mkdir say why
  }
  for (let i = missing.length - 1; i >= 0; i--) makeFolder(missing[i]!);
}

/** Makes the folder `dir` (its parent exists); one already there as a folder, made by another process meanwhile, is fine. */
export function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
  }
}

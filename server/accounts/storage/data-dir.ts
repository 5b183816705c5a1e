// Creates DATA_DIR and any missing parents, one level at a time. Node's recursive mkdir loops
// forever at 100% CPU on some paths (under /proc it keeps retrying ENOENT), so the start would hang
// with no output; made by hand, an impossible path fails at once with the system's error.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let dir = resolve(dataDir); !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break; // the root itself is missing: let mkdir say why
  }
  for (let i = missing.length - 1; i >= 0; i--) mkdirSync(missing[i]!, { mode: 0o700 });
}

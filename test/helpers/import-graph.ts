// The relative imports of compiled modules, as Node loads them: type-only imports are gone from the
// compiled files, so what is read here is what runs. Used by the engine's cycle test and the
// server's layer test.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// `import … from './x.js'`, `export … from './x.js'`, `import './x.js'`, `import('./x.js')`
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;])import\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every .js file under `dir`, as absolute paths. */
export function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** The absolute paths `file` imports relatively (package imports are not followed). */
export function importsOf(file: string): string[] {
  const targets: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) targets.push(resolve(dirname(file), match[1] ?? match[2]!));
  return targets;
}

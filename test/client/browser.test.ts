// jsonmend/client must run in browsers as well as Node: its compiled modules import only each
// other (the engine's types vanish at compile time, so a bundle never pulls the engine), touch no
// Node globals, and type-check against the DOM library without Node's types.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist', 'client');

t.test('the compiled client imports only its own modules and uses no Node globals', async (t) => {
  const files = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  t.ok(files.includes('index.js'));
  for (const name of files) {
    const code = readFileSync(join(DIST, name), 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    for (const specifier of specifiers) {
      t.ok(/^\.\/[a-z-]+\.js$/.test(specifier) && files.includes(specifier.slice(2)), `${name} imports ${specifier}`);
    }
    t.notMatch(code, /\b(process|Buffer|require|__dirname)\b/, `${name} uses no Node global`);
  }
});

t.test('the client type-checks for a browser (DOM library, no Node types)', async (t) => {
  const dir = mkdtempSync(join(ROOT, 'dist', '.browser-check-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [], strict: true, noEmit: true, skipLibCheck: false },
    files: [join(ROOT, 'client', 'index.ts')],
  }));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]).then(() => '', (e: { stdout: string }) => e.stdout);
  t.equal(result, '', 'no type errors');
});

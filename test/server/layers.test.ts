// The server's folders are layers (docs/design.md "Layers"): a module imports only from its own
// folder or from a layer below, never from a sibling folder of its own layer. Checked on the
// compiled modules of dist/server as Node loads them, so type-only imports do not count: what is
// guarded is what runs. The engine sits below every layer; nothing else outside dist/server may be
// imported by relative path.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { importsOf, modules } from '../helpers/import-graph.js';

const SERVER = fileURLToPath(new URL('../../dist/server/', import.meta.url));
const SOURCES = fileURLToPath(new URL('../../server/', import.meta.url));

/** The built modules whose source still exists: tsc leaves a moved file's old output behind. */
function built(root: string, sources: string): string[] {
  return modules(root).filter((file) => existsSync(join(sources, relative(root, file)).replace(/\.js$/, '.ts')));
}

/**
 * Bottom first. Each entry is a top-level folder of server/ or a file at its root; the entries of
 * one layer are siblings and never import each other. Streaming, web and status sit above accounts
 * and batch, so they may use them (the console manages keys, the operator token is checked with
 * the key hashing, /health reports the pool); app.js wires everything and main.js starts it.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['config'],
  ['contracts'],
  ['observe'],
  ['http', 'stores'],
  ['accounts', 'batch', 'gateway'],
  ['streaming', 'web', 'status'],
  ['app.js', 'process-primary.js'],
  ['main.js'],
];

/** The layer entry a module of `root` belongs to: its top-level folder, or its own name at the root. */
function unitOf(root: string, file: string): string {
  return relative(root, file).split(sep)[0]!;
}

/** Every relative import under `root` (a built server/) that points up a layer, across a layer, or outside. */
export function layerViolations(root: string, layers: readonly (readonly string[])[] = LAYERS, files: string[] = modules(root)): string[] {
  const levelOf = new Map<string, number>();
  layers.forEach((units, level) => units.forEach((unit) => levelOf.set(unit, level)));
  const engine = join(dirname(root.replace(/\/$/, '')), 'engine') + sep;
  const found: string[] = [];
  for (const file of files) {
    const from = unitOf(root, file);
    const fromLevel = levelOf.get(from);
    if (fromLevel === undefined) {
      found.push(`${relative(root, file)}: ${from} is in no layer`);
      continue;
    }
    for (const target of importsOf(file)) {
      const name = `${relative(root, file)} -> ${relative(root, target)}`;
      if (!target.startsWith(root)) {
        if (!target.startsWith(engine)) found.push(`${name}: outside the server and the engine`);
        continue;
      }
      const to = unitOf(root, target);
      if (to === from) continue;
      const toLevel = levelOf.get(to);
      if (toLevel === undefined || toLevel > fromLevel) found.push(`${name}: up from ${from} to ${to}`);
      else if (toLevel === fromLevel) found.push(`${name}: across from ${from} to ${to}`);
    }
  }
  return found;
}

t.test('every server import points down a layer or stays in its folder', async (t) => {
  const files = built(SERVER, SOURCES);
  t.ok(files.length > 80, 'the walk sees the built server');
  const placed = new Set(LAYERS.flat());
  t.same([...new Set(files.map((f) => unitOf(SERVER, f)))].filter((unit) => !placed.has(unit)), [], 'every folder has a layer');
  t.same(layerViolations(SERVER, LAYERS, files), []);
});

t.test('the walk finds imports that point up, across and outside', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'server') + sep;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  // config reading the tier table from accounts (up), batch calling into accounts (across), a
  // feature importing the command line (outside), and the allowed kinds beside them.
  write('config/env.js', "import { TIERS } from '../accounts/tiers.js';\nimport { LIMIT } from '../../engine/limits.js';\n");
  write('accounts/tiers.js', "export { TIERS } from './table.js';\nimport { parse } from '../config/env.js';\n");
  write('accounts/table.js', 'export const TIERS = {};\n');
  write('batch/route.js', "import('../accounts/tiers.js');\nimport '../../cli/main.js';\n");
  write('main.js', "import '../server/batch/route.js';\n");
  t.same(layerViolations(root, [['config'], ['accounts', 'batch'], ['main.js']]).sort(), [
    'batch/route.js -> ../cli/main.js: outside the server and the engine',
    'batch/route.js -> accounts/tiers.js: across from batch to accounts',
    'config/env.js -> accounts/tiers.js: up from config to accounts',
  ]);
});

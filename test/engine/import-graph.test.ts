// No runtime import cycle in the engine: the modules of dist/engine, as Node loads them (type-only
// imports are gone from the compiled files), form a graph without a cycle. A cycle makes a module's
// exports undefined while its partner is still loading, which only the load order keeps harmless.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { importsOf, modules } from '../helpers/import-graph.js';

const ENGINE = fileURLToPath(new URL('../../dist/engine/', import.meta.url));

/** The first cycle found among the relative imports of the modules under `root`, as a path of files; null when none. */
export function findCycle(root: string): string[] | null {
  const edges = new Map<string, string[]>();
  for (const file of modules(root)) {
    edges.set(file, importsOf(file));
  }
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return path.slice(path.indexOf(file)).concat(file);
    state.set(file, 'open');
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle !== null) return cycle;
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of edges.keys()) {
    const cycle = visit(file);
    if (cycle !== null) return cycle.map((f) => f.slice(root.length));
  }
  return null;
}

t.test('the engine modules import each other without a cycle', async (t) => {
  t.ok(modules(ENGINE).length > 20, 'the walk sees the built engine');
  t.equal(findCycle(ENGINE)?.join(' -> ') ?? null, null);
});

t.test('the walk finds a cycle where there is one', async (t) => {
  // The scanner as it was before its shared constants moved to phases.ts: scanner.js imported
  // fast-lane.js, which imported the phases back from scanner.js.
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'scanner.js'), "import { fastLane } from './fast-lane.js';\nexport const VALUE = 1;\n");
  writeFileSync(join(dir, 'fast-lane.js'), "import { hex4At } from './char-codes.js';\nimport { VALUE } from './scanner.js';\n");
  writeFileSync(join(dir, 'char-codes.js'), 'export function hex4At() {}\n');
  const cycle = findCycle(`${dir}/`);
  t.same([...new Set(cycle)].sort(), ['fast-lane.js', 'scanner.js']);
});

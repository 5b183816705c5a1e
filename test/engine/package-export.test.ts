// `import { repair, createStream } from 'jsonmend/engine'` works from the project root (docs/design.md "Engine").
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

t.test('the package exports the engine under jsonmend/engine', async (t) => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    "import { repair, createStream } from 'jsonmend/engine'; const s = createStream(); s.push('[1,'); " +
    "console.log(JSON.stringify([repair('{a:1,}').repaired, s.finalize().repaired]))"], { cwd: root, encoding: 'utf8' });
  t.same(JSON.parse(out), [{ a: 1 }, [1]]);
});

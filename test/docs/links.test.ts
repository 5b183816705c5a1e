// Every relative link in README.md, examples/, clients/ and docs/ (internals included) points at a
// file of the repository, and every #anchor at a heading of its page (GitHub's slugs), so moving
// a section or a page cannot leave a reader at a dead link.
import t from 'tap';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers/run-cli.js';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md') && !f.includes('node_modules')).map((f) => join(dir, f));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6} (.*)$/gm)) {
    const base = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs')), ...markdownFiles(join(ROOT, 'examples')),
  join(ROOT, 'client', 'README.md'), join(ROOT, 'engine', 'README.md'), join(ROOT, 'clients', 'python', 'README.md')];

t.test('relative links resolve', async (t) => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      checked++;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(ROOT, file)}: ${target}`;
      if (!existsSync(resolved)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile() && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  }
  t.ok(checked > 100, `${checked} links checked`);
  t.same(broken, [], 'no broken links');
});

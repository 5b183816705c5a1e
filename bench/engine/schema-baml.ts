// BAML's `b.parse` beside jsonmend in `npm run bench:schema`. BAML (npm @boundaryml/baml) is no
// dependency of the service: it is installed on demand into a private directory (BAML_BENCH_DIR, by
// default ~/.cache/jsonmend-bench/baml-<version>), its client is generated there by `baml-cli
// generate` and compiled with the repository's TypeScript, and then it runs offline. The install
// pins a version whose platform packages all resolve (a later one breaks `npm ci`) and turns off the
// telemetry postinstall of the @scarf/scarf package it pulls (SCARF_ANALYTICS=false).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const BAML_VERSION = '0.223.0';

/** The bench's reply schema (schema.ts replySchema) in BAML: the same 11 fields, the same optionality. */
const BAML_SOURCE = `enum Role {
  Analyst @alias("analyst")
  Engineer @alias("engineer")
  Manager @alias("manager")
}
class Project {
  title string
  year int
  pages int?
  is_public bool? @alias("public")
}
class Address {
  city string?
  zip string?
  note string?
}
class Reply {
  name string
  role Role
  active bool?
  verified bool?
  manager string?
  skills string[]?
  projects Project[]
  address Address?
  bio string?
}
function ExtractReply(text: string) -> Reply {
  client "openai/gpt-4o"
  prompt #"{{ text }} {{ ctx.output_format }}"#
}
generator target {
  output_type "typescript"
  output_dir "../"
  version "${BAML_VERSION}"
  module_format "esm"
}
`;

export type BamlParse = (text: string) => unknown;
export type BamlOutcome = { parse: BamlParse; dir: string } | { absent: string };

function run(command: string, args: string[], cwd: string): string | null {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
  });
  if (result.status === 0) return null;
  const output = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').filter((line) => !/^\s*\d+: /.test(line));
  return `${command} ${args.join(' ')}: ${result.error?.message ?? `exit ${result.status}`} ${output.slice(-6).join(' | ')}`;
}

/**
 * BAML's parser for the bench schema, installed, generated and compiled on first use; `absent`
 * says what failed (the bench then marks BAML's rows absent and times the rest).
 */
export async function loadBaml(): Promise<BamlOutcome> {
  const dir = process.env.BAML_BENCH_DIR ?? join(homedir(), '.cache', 'jsonmend-bench', `baml-${BAML_VERSION}`);
  try {
    mkdirSync(join(dir, 'baml_src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true,"type":"module"}\n');
    const cli = join(dir, 'node_modules', '@boundaryml', 'baml', 'cli.js');
    if (!existsSync(cli)) {
      const failed = run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `@boundaryml/baml@${BAML_VERSION}`], dir);
      if (failed !== null) return { absent: failed };
    }
    const sourceFile = join(dir, 'baml_src', 'reply.baml');
    const client = join(dir, 'baml_client_js', 'index.js');
    const fresh = existsSync(sourceFile) && readFileSync(sourceFile, 'utf8') === BAML_SOURCE && existsSync(client);
    if (!fresh) {
      writeFileSync(sourceFile, BAML_SOURCE);
      const generated = run(process.execPath, [cli, 'generate', '--from', join(dir, 'baml_src')], dir);
      if (generated !== null) return { absent: generated };
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const compiled = run(process.execPath, [tsc, '--outDir', join(dir, 'baml_client_js'), '--module', 'nodenext',
        '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--noCheck',
        join(dir, 'baml_client', 'index.ts')], dir);
      if (compiled !== null) return { absent: compiled };
    }
    const { b } = await import(pathToFileURL(client).href) as { b: { parse: { ExtractReply: BamlParse } } };
    return { parse: (text) => b.parse.ExtractReply(text), dir };
  } catch (error) {
    return { absent: (error as Error).message };
  }
}

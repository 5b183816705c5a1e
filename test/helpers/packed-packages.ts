// Packs the two published packages (client/ → jsonmend-client, engine/ → jsonmend-engine) with
// `npm pack`, as a user or a release would, and installs the tarballs into an empty temporary
// project: what a user gets from `npm install ./jsonmend-client-<version>.tgz`. The engine's
// dependencies (ajv, …) come from npm's cache, or the registry for what the cache lacks
// (`--prefer-offline`). Removed in teardown.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './run-cli.js';

interface Teardown { teardown(fn: () => unknown): void }

export interface PackedProject {
  /** The temporary project, with both packages in its node_modules. */
  readonly dir: string;
  /** The tarballs' file names, by package name. */
  readonly tarballs: Readonly<Record<'jsonmend-client' | 'jsonmend-engine', string>>;
  /** Runs `node file` in the project; resolves with its stdout (rejects with its stderr on failure). */
  node(file: string, env?: Record<string, string>): Promise<string>;
}

const run = promisify(execFile);
const npm = (args: string[], cwd: string): Promise<{ stdout: string }> =>
  run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' }, timeout: 120_000 });

export async function packAndInstall(t: Teardown): Promise<PackedProject> {
  const packs = mkdtempSync(join(tmpdir(), 'jsonmend-packs-'));
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-user-'));
  t.teardown(() => {
    rmSync(packs, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });
  const tarballs: Record<string, string> = {};
  for (const folder of ['client', 'engine']) {
    const { stdout } = await npm(['pack', '--json', '--pack-destination', packs], join(ROOT, folder));
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { name: string; filename: string }[];
    tarballs[packed!.name] = packed!.filename;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...Object.values(tarballs).map((f) => join(packs, f))], dir);
  return {
    dir,
    tarballs: tarballs as PackedProject['tarballs'],
    node: async (file, env = {}) => (await run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 })).stdout,
  };
}

/** A package.json of the installed project, parsed. */
export function installedManifest(project: PackedProject, name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(project.dir, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, any>;
}

// Runs the compiled `jsonmend` command (dist/cli/jsonmend.js, so run `npm run build` first) as a real
// process: the CLI tests, and the key commands the accounts and cluster tests issue.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli', 'jsonmend.js');

export interface CliRun { code: number | null; stdout: string; stderr: string }

/** `jsonmend <args>` with `env` added to this process's environment and `stdin` as its input. */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...options.env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? null, stdout, stderr });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}

// The one module that imports uWebSockets.js. Two packages provide it, tried in this order:
// - `uWebSockets.js`, the official one (installed from GitHub, docs/design.md "Runtime"): builds for
//   current Node versions (22, 24), but they need a newer glibc than some machines have, and then its
//   require throws;
// - `@trufflesuite/uws-js-unofficial` (the dependency): native for Node 18/20 on glibc >= 2.36, and
//   otherwise a slow pure-JS implementation it swaps in silently.
// The first that loads natively wins. Only the native modules export `getParts`, which is how the
// pure-JS fallback is told apart (docs/design.md "Runtime").
import { createRequire } from 'node:module';
import type * as Uws from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, RecognizedString, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
export type UwsBackend = 'native' | 'fallback';

/** The packages that provide uWS, most preferred first. */
export const UWS_PACKAGES: readonly string[] = ['uWebSockets.js', '@trufflesuite/uws-js-unofficial'];

export interface LoadedUws {
  readonly uws: typeof Uws;
  readonly backend: UwsBackend;
  /** The package that was loaded. */
  readonly packageName: string;
  /** Packages tried before it and why they were passed over (not installed, or their binary would not load). */
  readonly skipped: readonly { packageName: string; reason: string }[];
}

/** What /health and the start line report. */
export type UwsIdentity = Pick<LoadedUws, 'backend' | 'packageName'>;

export class UwsFallbackRefused extends Error {
  constructor(skipped: LoadedUws['skipped']) {
    super(
      'uWebSockets.js could not load its native binary and fell back to the slow pure-JS implementation; ' +
        'refusing to start. Use Node 18 or 20 on glibc >= 2.36 (linux x64/arm64), install the official uWebSockets.js ' +
        'for newer Node versions (README, "Runtime notes"), or set UWS_ALLOW_FALLBACK=1.' +
        skipped.map((s) => ` (${s.packageName}: ${s.reason})`).join(''),
    );
  }
}

type Load = (packageName: string) => unknown;

const isNotInstalled = (error: unknown, packageName: string): boolean =>
  (error as { code?: unknown })?.code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${packageName}'`);

/**
 * Loads the first package of `candidates` that is installed and loads natively; when none does, the
 * last one that loaded (a pure-JS fallback), refused unless `allowFallback`. `load` is `require`
 * from this module; tests pass their own to choose what is installed.
 */
export function loadUws(allowFallback: boolean, candidates: readonly string[] = UWS_PACKAGES, load: Load = createRequire(import.meta.url)): LoadedUws {
  const skipped: { packageName: string; reason: string }[] = [];
  let fallback: { uws: typeof Uws; packageName: string } | null = null;
  for (const packageName of candidates) {
    let uws: typeof Uws;
    try {
      // The packages are CommonJS; the unofficial one prints its fallback warnings while loading.
      uws = load(packageName) as typeof Uws;
    } catch (error) {
      skipped.push({ packageName, reason: isNotInstalled(error, packageName) ? 'not installed' : (error as Error).message.split('\n')[0]! });
      continue;
    }
    if (typeof (uws as { getParts?: unknown }).getParts === 'function') return { uws, backend: 'native', packageName, skipped };
    skipped.push({ packageName, reason: 'its native binary did not load (pure-JS fallback)' });
    fallback ??= { uws, packageName };
  }
  if (fallback === null) throw new Error(`no uWebSockets.js package could be loaded:${skipped.map((s) => ` ${s.packageName}: ${s.reason};`).join('')}`);
  if (!allowFallback) throw new UwsFallbackRefused(skipped);
  return { ...fallback, backend: 'fallback', skipped: skipped.filter((s) => s.packageName !== fallback!.packageName) };
}

// The one module that imports uWebSockets.js. The package silently swaps in a slow pure-JS
// implementation when its native binary cannot load; only the native module exports `getParts`,
// which is how the fallback is told apart (docs/design.md "Runtime").
import { createRequire } from 'node:module';
import type * as Uws from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, RecognizedString, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
export type UwsBackend = 'native' | 'fallback';

export interface LoadedUws {
  readonly uws: typeof Uws;
  readonly backend: UwsBackend;
}

export class UwsFallbackRefused extends Error {
  constructor() {
    super(
      'uWebSockets.js could not load its native binary and fell back to the slow pure-JS implementation; ' +
        'refusing to start. Use Node 18 or 20 on glibc >= 2.36 (linux x64/arm64), or set UWS_ALLOW_FALLBACK=1.',
    );
  }
}

export function loadUws(allowFallback: boolean): LoadedUws {
  // The package is CommonJS and prints its fallback warnings to the console while loading.
  const require = createRequire(import.meta.url);
  const uws = require('@trufflesuite/uws-js-unofficial') as typeof Uws;
  const backend: UwsBackend = typeof (uws as { getParts?: unknown }).getParts === 'function' ? 'native' : 'fallback';
  if (backend === 'fallback' && !allowFallback) throw new UwsFallbackRefused();
  return { uws, backend };
}

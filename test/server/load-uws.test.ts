// Which uWS the server runs on: the official uWebSockets.js when it is installed and its binary
// loads, else @trufflesuite/uws-js-unofficial; a package whose binary does not load (a Node or glibc
// it was not built for) is passed over with its reason, and a pure-JS fallback is refused unless
// allowed. The real loadUws is given a `require` rooted in a folder of fake packages; the last test
// runs the real server with a stand-in official package on NODE_PATH and reads /health.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadUws, UWS_PACKAGES, UwsFallbackRefused } from '../../server/http/load-uws.js';
import { startServer } from '../helpers/start-server.js';

const OFFICIAL = 'uWebSockets.js';
const UNOFFICIAL = '@trufflesuite/uws-js-unofficial';
const REAL_UNOFFICIAL = createRequire(import.meta.url).resolve(UNOFFICIAL);

const NATIVE = `module.exports = { App() {}, getParts() {}, which: NAME };`;
const PURE_JS = `module.exports = { App() {}, which: NAME };`;
const BROKEN = `throw new Error('This version of uWS.js supports only Node.js LTS versions 16, 18 and 20 on (glibc) Linux: GLIBC_2.38 not found');`;

/** A folder whose node_modules holds the given packages (name → module source); its require and the folder. */
function installed(t: { teardown(fn: () => void): void }, packages: Record<string, string>): { load: (name: string) => unknown; modules: string } {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-uws-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, source] of Object.entries(packages)) {
    const folder = join(dir, 'node_modules', name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, main: 'index.js' }));
    writeFileSync(join(folder, 'index.js'), source.replace('NAME', JSON.stringify(name)));
  }
  return { load: createRequire(join(dir, 'entry.js')), modules: join(dir, 'node_modules') };
}

t.test('the official package is preferred', async (t) => {
  t.same(UWS_PACKAGES, [OFFICIAL, UNOFFICIAL]);
  const { load } = installed(t, { [OFFICIAL]: NATIVE, [UNOFFICIAL]: NATIVE });
  const loaded = loadUws(false, UWS_PACKAGES, load);
  t.same([loaded.packageName, loaded.backend, (loaded.uws as unknown as { which: string }).which], [OFFICIAL, 'native', OFFICIAL]);
  t.same(loaded.skipped, []);
});

t.test('without the official package, the unofficial one is used', async (t) => {
  const { load } = installed(t, { [UNOFFICIAL]: NATIVE });
  const loaded = loadUws(false, UWS_PACKAGES, load);
  t.same([loaded.packageName, loaded.backend], [UNOFFICIAL, 'native']);
  t.same(loaded.skipped, [{ packageName: OFFICIAL, reason: 'not installed' }]);
});

t.test('an official package whose binary does not load is passed over, with its reason', async (t) => {
  const { load } = installed(t, { [OFFICIAL]: BROKEN, [UNOFFICIAL]: NATIVE });
  const loaded = loadUws(false, UWS_PACKAGES, load);
  t.equal(loaded.packageName, UNOFFICIAL);
  t.equal(loaded.skipped[0]!.packageName, OFFICIAL);
  t.match(loaded.skipped[0]!.reason, /supports only Node\.js LTS/);
});

t.test('a pure-JS fallback is refused unless allowed, and a native package after it still wins', async (t) => {
  const { load } = installed(t, { [UNOFFICIAL]: PURE_JS });
  let refused: unknown;
  try {
    loadUws(false, UWS_PACKAGES, load);
  } catch (error) {
    refused = error;
  }
  t.ok(refused instanceof UwsFallbackRefused, 'refused');
  t.match((refused as Error).message, /UWS_ALLOW_FALLBACK=1/);
  const allowed = loadUws(true, UWS_PACKAGES, load);
  t.same([allowed.packageName, allowed.backend], [UNOFFICIAL, 'fallback']);
  const both = installed(t, { [OFFICIAL]: PURE_JS, [UNOFFICIAL]: NATIVE });
  t.same([loadUws(false, UWS_PACKAGES, both.load).packageName, loadUws(false, UWS_PACKAGES, both.load).backend], [UNOFFICIAL, 'native']);
});

t.test('nothing installed is an error naming what was tried', async (t) => {
  const { load } = installed(t, {});
  t.throws(() => loadUws(true, UWS_PACKAGES, load), /no uWebSockets\.js package could be loaded: uWebSockets\.js: not installed; @trufflesuite\/uws-js-unofficial: not installed;/);
});

t.test('this machine: the loader with its defaults finds the installed package', async (t) => {
  const loaded = loadUws(false);
  t.equal(loaded.backend, 'native');
  t.ok(UWS_PACKAGES.includes(loaded.packageName));
});

t.test('the server reports the package it runs on in /health', async (t) => {
  const plain = await startServer(t, {}, 30_000);
  const health = await (await fetch(`${plain.url}/health`)).json() as { uws: string; uwsPackage: string };
  t.same([health.uws, health.uwsPackage], ['native', loadUws(false).packageName]);
  // An "official" package on NODE_PATH (the unofficial build under the official name) is the one used.
  const { modules } = installed(t, { [OFFICIAL]: `module.exports = require(${JSON.stringify(REAL_UNOFFICIAL)});` });
  const official = await startServer(t, { NODE_PATH: modules }, 30_000);
  const reported = await (await fetch(`${official.url}/health`)).json() as { uws: string; uwsPackage: string };
  t.same([reported.uws, reported.uwsPackage], ['native', OFFICIAL]);
});

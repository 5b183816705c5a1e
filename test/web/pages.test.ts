// The pages and their assets as served: content types, cache headers, ETag revalidation, gzip,
// the security headers, and the build-once loader's own checks.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { rawRequest } from '../helpers/raw-http.js';
import { loadStaticSite } from '../../server/web/static-assets.js';
import { startWebServer } from './helpers.js';

const { url } = await startWebServer(t);

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url + path, { headers });
}

t.test('pages: HTML, revalidated on every load, with the security headers', async (t) => {
  for (const path of ['/', '/console', '/console/']) {
    const page = await get(path);
    t.equal(page.status, 200, path);
    t.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(page.headers.get('cache-control'), 'no-cache');
    t.match(page.headers.get('etag'), /^"[A-Za-z0-9_-]{22}"$/);
    t.match(page.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'; style-src 'self'/);
    t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
    t.equal(page.headers.get('x-frame-options'), 'DENY');
    t.equal(page.headers.get('x-content-type-options'), 'nosniff');
    t.equal(page.headers.get('referrer-policy'), 'no-referrer');
    t.ok(page.headers.get('x-request-id'));
    const html = await page.text();
    t.notMatch(html, /<script>|\sstyle="|\son[a-z]+="/, 'no inline script, style or handler (the CSP forbids them)');
  }
  t.match(await (await get('/')).text(), /href="\/openapi\.json"/, 'the playground links the OpenAPI document');
});

t.test('assets: versioned paths, cached for a year, right types; others 404', async (t) => {
  const html = await (await get('/')).text();
  const assets = [...html.matchAll(/"(\/assets\/[0-9a-f]{12}\/[a-z-]+\.(?:js|css|svg))"/g)].map((m) => m[1]!);
  t.ok(assets.some((a) => a.endsWith('/playground.js')) && assets.some((a) => a.endsWith('/style.css')), 'the page names its assets by version');
  const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };
  for (const asset of new Set(assets)) {
    const answer = await get(asset);
    t.equal(answer.status, 200, asset);
    t.equal(answer.headers.get('content-type'), types[asset.split('.').pop()!]);
    t.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  const version = assets[0]!.split('/')[2]!;
  const imported = await get(`/assets/${version}/dom.js`);
  t.equal(imported.status, 200, 'modules the page scripts import sit in the same version directory');
  for (const missing of [`/assets/${version}/nope.js`, '/assets/000000000000/playground.js', `/assets/${version}/../../package.json`]) {
    const answer = await get(missing);
    t.equal(answer.status, 404, missing);
    t.equal(answer.headers.get('content-type'), 'application/json');
  }
});

t.test('ETag revalidation answers 304 without a body; gzip when accepted', async (t) => {
  const first = await get('/console');
  const etag = first.headers.get('etag')!;
  for (const header of [etag, `W/${etag}`, `"other", ${etag}`]) {
    const again = await get('/console', { 'if-none-match': header });
    t.equal(again.status, 304, header);
    t.equal(await again.text(), '');
    t.equal(again.headers.get('etag'), etag);
    t.equal(again.headers.get('cache-control'), 'no-cache');
  }
  t.equal((await get('/console', { 'if-none-match': '"stale"' })).status, 200);
  const page = await (await get('/', { 'accept-encoding': 'identity' })).text();
  const zipped = await rawRequest(url, 'GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\n\r\n');
  t.equal(zipped.headers['content-encoding'], 'gzip');
  t.equal(zipped.headers['vary'], 'Accept-Encoding');
  t.ok(Number(zipped.headers['content-length']) < Buffer.byteLength(page) / 2, 'much smaller than the page');
  const inflated = await get('/', { 'accept-encoding': 'gzip' });
  t.equal(await inflated.text(), page, 'the same page once inflated');
});

t.test('the loader refuses to start without built page scripts, naming the fix', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'jsonmend-site-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'web'));
  writeFileSync(join(root, 'web', 'index.html'), '<link href="/assets/style.css">');
  writeFileSync(join(root, 'web', 'console.html'), '');
  writeFileSync(join(root, 'web', 'style.css'), 'body{}');
  writeFileSync(join(root, 'web', 'page.ts'), 'export {};');
  t.throws(() => loadStaticSite(root), /not built .*page\.js.*npm run build/);
  mkdirSync(join(root, 'dist', 'web'), { recursive: true });
  writeFileSync(join(root, 'dist', 'web', 'page.js'), 'export {};');
  const site = loadStaticSite(root);
  t.match(site.files.get('/')!.body.toString(), new RegExp(`href="/assets/${site.version}/style.css"`));
  t.ok(site.files.has(`/assets/${site.version}/page.js`));
  writeFileSync(join(root, 'web', 'style.css'), 'body{color:red}');
  t.not(loadStaticSite(root).version, site.version, 'a changed asset gets a new version directory');
});

// The web pages, built once at start: HTML, CSS and SVG from web/, the page scripts compiled by
// `npm run build` into dist/web/. Everything is read, hashed and gzipped here, once; requests are
// then answered from memory. Assets live under /assets/<version>/, where the version is a hash of
// all of them, so they can be cached for a year ("immutable") while the pages, revalidated on
// every load (no-cache + ETag), always point at the current set. Relative imports between the
// page modules stay inside the same version directory.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { HeaderList } from '../http/response-writer.js';
import { PAGE_SECURITY_HEADERS } from './security-headers.js';

export interface StaticFile {
  readonly etag: string;
  readonly body: Buffer;
  /** Null when gzip would not make it smaller. */
  readonly gzip: Buffer | null;
  /** Content-Type, Cache-Control, ETag and, for pages, the security headers. */
  readonly headers: HeaderList;
  readonly gzipHeaders: HeaderList;
  /** What a 304 repeats (ETag, Cache-Control, the extra headers, Vary). */
  readonly notModifiedHeaders: HeaderList;
}

export interface StaticSite {
  readonly version: string;
  /** Page paths (`/`, `/console`, `/console/`) and asset paths (`/assets/<version>/x.js`). */
  readonly files: ReadonlyMap<string, StaticFile>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};
const PAGES: Record<string, readonly string[]> = { 'index.html': ['/'], 'console.html': ['/console', '/console/'] };
const SOURCE_ASSETS = new Set(['.css', '.svg']);
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

/** The project root: the nearest folder above this module with jsonmend's package.json. */
export function projectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'jsonmend') return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find jsonmend's package.json above ${from}`);
  }
}

/** One file ready to serve. `extra` adds headers (the pages' security headers, CORS). */
export function staticFile(body: Buffer, contentType: string, cacheControl: string, extra: HeaderList = []): StaticFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  const zipped = body.length >= 512 ? gzipSync(body, { level: 9 }) : null;
  const gzip = zipped !== null && zipped.length < body.length ? zipped : null;
  const common: HeaderList = [['Content-Type', contentType], ['Cache-Control', cacheControl], ['ETag', etag], ...extra];
  const vary: HeaderList = gzip === null ? [] : [['Vary', 'Accept-Encoding']];
  return {
    etag,
    body,
    gzip,
    headers: [...common, ...vary],
    gzipHeaders: [...common, ...vary, ['Content-Encoding', 'gzip']],
    notModifiedHeaders: [['ETag', etag], ['Cache-Control', cacheControl], ...extra, ...vary],
  };
}

export function loadStaticSite(root: string = projectRoot()): StaticSite {
  const sourceDir = join(root, 'web');
  const builtDir = join(root, 'dist', 'web');
  const assets = new Map<string, Buffer>();
  for (const name of readdirSync(sourceDir).sort()) {
    if (SOURCE_ASSETS.has(extname(name))) assets.set(name, readFileSync(join(sourceDir, name)));
    if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      const built = join(builtDir, name.replace(/\.ts$/, '.js'));
      if (!existsSync(built)) throw new Error(`the web pages are not built (${built} is missing): run npm run build`);
      assets.set(name.replace(/\.ts$/, '.js'), readFileSync(built));
    }
  }
  const digest = createHash('sha256');
  for (const [name, body] of assets) digest.update(name).update('\0').update(body);
  const version = digest.digest('hex').slice(0, 12);

  const files = new Map<string, StaticFile>();
  for (const [name, body] of assets) {
    files.set(`/assets/${version}/${name}`, staticFile(body, CONTENT_TYPES[extname(name)]!, IMMUTABLE));
  }
  for (const [name, paths] of Object.entries(PAGES)) {
    // Pages name assets as /assets/x; they are served from this build's version directory.
    const html = readFileSync(join(sourceDir, name), 'utf8').replaceAll('"/assets/', `"/assets/${version}/`);
    const page = staticFile(Buffer.from(html), CONTENT_TYPES['.html']!, REVALIDATE, PAGE_SECURITY_HEADERS);
    for (const path of paths) files.set(path, page);
  }
  return { version, files };
}

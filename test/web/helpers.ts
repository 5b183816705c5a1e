// Shared set-up for the web tests: a server on a throw-away DATA_DIR, a small console API client
// with a cookie jar, and Debian's chromium driven by playwright-core (skipped, with the reason,
// where chromium is not installed; .ci/run installs it).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startServer, type StartedServer } from '../helpers/start-server.js';

interface Teardown { teardown(fn: () => unknown): void }

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** false when the browser tests can run, else why not (tap's `skip` option takes either). */
export const browserSkip: false | string = existsSync(CHROMIUM)
  ? false
  : `chromium is not installed at ${CHROMIUM} (apt-get install -y chromium; .ci/run does this)`;

export async function launchBrowser(t: Teardown): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  return browser;
}

export interface WebServer { server: StartedServer; url: string; dataDir: string }

export async function startWebServer(t: Teardown, env: Record<string, string> = {}): Promise<WebServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-web-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer(t, { DATA_DIR: dataDir, ...env });
  return { server, url: server.url, dataDir };
}

export interface Answer { status: number; headers: Headers; body: any }

/** A browser-like client of /console/api/: it keeps the jm_sid cookie and the CSRF token. */
export class ConsoleClient {
  cookie = '';
  csrf = '';
  lastSetCookie = '';

  /** `send`: another fetch (e.g. support/haproxy.ts fetchFrom, a client at another address). */
  constructor(
    readonly base: string,
    readonly extraHeaders: Record<string, string | string[]> = {},
    readonly transport: (url: string, init: { method: string; headers: Record<string, string | string[]>; body: string | null }) => Promise<Response> = fetch as never,
  ) {}

  async send(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const all: Record<string, string | string[]> = { ...this.extraHeaders, ...headers };
    if (this.cookie !== '') all['cookie'] = `jm_sid=${this.cookie}`;
    if (method === 'POST') {
      all['content-type'] ??= 'application/json';
      all['x-csrf-token'] ??= this.csrf;
    }
    const response = await this.transport(`${this.base}/console/api/${path}`, {
      method,
      headers: all,
      body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body ?? {})) : null,
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie !== null) {
      this.lastSetCookie = setCookie;
      this.cookie = /jm_sid=([^;]*)/.exec(setCookie)![1]!;
    }
    const text = await response.text();
    const parsed = text === '' ? null : JSON.parse(text);
    if (parsed?.csrf_token !== undefined) this.csrf = parsed.csrf_token;
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** Fetches the session (and with it a cookie and a CSRF token). */
  start(): Promise<Answer> {
    return this.send('GET', 'session');
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where a browser test saves a screenshot: docs/<name>.png when UPDATE_SCREENSHOTS=1 (to refresh
 * the README's pictures), otherwise a temporary file, so a normal test run leaves the tree alone.
 */
export function screenshotPath(t: Teardown, name: string): string {
  if (process.env['UPDATE_SCREENSHOTS'] === '1') return join(import.meta.dirname, '..', '..', 'docs', `${name}.png`);
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-shot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, `${name}.png`);
}

/** True when the page scrolls sideways (the phone-size check). */
export const SCROLLS_SIDEWAYS = (): boolean => document.documentElement.scrollWidth > document.documentElement.clientWidth;

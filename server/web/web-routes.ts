// The web face of the server, mounted through ServerParts.extraRoutes: the playground at /, the
// console at /console with its JSON API under /console/api/, the page assets, and /openapi.json.
// Everything is loaded and compiled here, once, at start.
import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { StoreHealth } from '../stores/store-health.js';
import type { HttpContext } from '../http/http-context.js';
import type { RouteEntry } from '../http/router.js';
import { ConsoleService, type ConsoleAccounts } from './console/console-service.js';
import { consoleRoutes } from './console/console-routes.js';
import { CsrfGuard } from './console/csrf.js';
import { LoginLimiter, type LoginLimiterOptions, type SignInLimit } from './console/login-limiter.js';
import { PasswordHasher, type PasswordHasherOptions } from './console/password.js';
import { SessionStore, type ConsoleSessions, type SessionStoreOptions } from './console/sessions.js';
import { SharedLoginLimiter } from './console/shared-login-limiter.js';
import { SharedSessions } from './console/shared-sessions.js';
import { OPENAPI_DOCUMENT } from './openapi.js';
import { loadStaticSite, REVALIDATE, staticFile, type StaticSite } from './static-assets.js';
import { staticRoutes } from './static-routes.js';

export interface WebOptions {
  accounts: ConsoleAccounts;
  /** Default: web/ and dist/web/ of this project. */
  site?: StaticSite;
  sessions?: SessionStoreOptions;
  loginLimit?: LoginLimiterOptions;
  passwords?: PasswordHasherOptions;
  /**
   * Shared between nodes (REDIS_URL): a session store and sign-in limiter in Redis, and the
   * CLUSTER_SECRET that signs CSRF tokens, so any node accepts a browser signed in through another.
   */
  shared?: { sessions: ConsoleSessions; limiter: SignInLimit; csrfSecret: Buffer };
}

/** The console's shared parts over Redis; the CSRF key is derived from CLUSTER_SECRET, never the secret itself. */
export function sharedConsole(redis: Redis, health: StoreHealth, clusterSecret: string): NonNullable<WebOptions['shared']> {
  return {
    sessions: new SharedSessions({ redis, health }),
    limiter: new SharedLoginLimiter({ redis, health }),
    csrfSecret: createHmac('sha256', clusterSecret).update('jsonmend console csrf').digest(),
  };
}

export function webRoutes(ctx: HttpContext, options: WebOptions): RouteEntry[] {
  const site = options.site ?? loadStaticSite();
  // Served to any origin: API tools (Swagger UI, code generators) fetch it from elsewhere.
  const openapi = staticFile(Buffer.from(JSON.stringify(OPENAPI_DOCUMENT)), 'application/json', REVALIDATE, [
    ['Access-Control-Allow-Origin', '*'],
  ]);
  const sessions = options.shared?.sessions ?? new SessionStore(options.sessions);
  const service = new ConsoleService({
    accounts: options.accounts,
    sessions,
    hasher: new PasswordHasher(options.passwords),
    limiter: options.shared?.limiter ?? new LoginLimiter(options.loginLimit),
  });
  const csrf = new CsrfGuard(options.shared?.csrfSecret);
  return [...staticRoutes(ctx, site, openapi), ...consoleRoutes(ctx, { service, sessions, csrf })];
}

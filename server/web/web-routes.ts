// The web face of the server, mounted through ServerParts.extraRoutes: the playground at /, the
// console at /console with its JSON API under /console/api/, the page assets, and /openapi.json.
// Everything is loaded and compiled here, once, at start.
import type { HttpContext } from '../http/http-context.js';
import type { RouteEntry } from '../http/router.js';
import { ConsoleService, type ConsoleAccounts } from './console/console-service.js';
import { consoleRoutes } from './console/console-routes.js';
import { CsrfGuard } from './console/csrf.js';
import { LoginLimiter, type LoginLimiterOptions } from './console/login-limiter.js';
import { PasswordHasher, type PasswordHasherOptions } from './console/password.js';
import { SessionStore, type SessionStoreOptions } from './console/sessions.js';
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
}

export function webRoutes(ctx: HttpContext, options: WebOptions): RouteEntry[] {
  const site = options.site ?? loadStaticSite();
  // Served to any origin: API tools (Swagger UI, code generators) fetch it from elsewhere.
  const openapi = staticFile(Buffer.from(JSON.stringify(OPENAPI_DOCUMENT)), 'application/json', REVALIDATE, [
    ['Access-Control-Allow-Origin', '*'],
  ]);
  const sessions = new SessionStore(options.sessions);
  const service = new ConsoleService({
    accounts: options.accounts,
    sessions,
    hasher: new PasswordHasher(options.passwords),
    limiter: new LoginLimiter(options.loginLimit),
  });
  return [...staticRoutes(ctx, site, openapi), ...consoleRoutes(ctx, { service, sessions, csrf: new CsrfGuard() })];
}

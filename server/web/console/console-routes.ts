// The console's JSON API under /console/api/. Every POST must be JSON and carry the CSRF token of
// the browser's `jm_sid` cookie (csrf.ts); signed-in calls also need that cookie to name a live
// session. Errors are `{ error: { code, message } }` with an HTTP status (console-errors.ts).
import type { HttpContext } from '../../http/http-context.js';
import type { Method, RouteEntry } from '../../http/router.js';
import { describeFault } from '../../observe/request-record.js';
import type { HttpRequest, HttpResponse } from '../../http/load-uws.js';
import { consoleFailure } from './console-errors.js';
import { ConsoleExchange, type ConsoleReply } from './console-exchange.js';
import { CONSOLE_TIER, type ConsoleService, type Result } from './console-service.js';
import { sessionCookie } from './cookies.js';
import { looksSameOrigin, type CsrfGuard } from './csrf.js';
import { StoreUnavailable } from '../../stores/store-health.js';
import { newSessionId, type ConsoleSessions, type Session } from './sessions.js';

export interface ConsoleDeps {
  service: ConsoleService;
  sessions: ConsoleSessions;
  csrf: CsrfGuard;
}

interface Call {
  exchange: ConsoleExchange;
  session: Session | undefined;
  body: Record<string, unknown>;
}

interface Endpoint {
  method: Method;
  path: string;
  name: string;
  signedIn: boolean;
  run(call: Call, deps: ConsoleDeps): Promise<ConsoleReply | Result<ConsoleReply>>;
}

const NO_BODY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** What the page learns about its visitor, with the CSRF token for the cookie it now holds. */
function sessionReply(status: number, deps: ConsoleDeps, sid: string, session: Session | undefined, cookie?: string): ConsoleReply {
  const body = session === undefined
    ? { signed_in: false, csrf_token: deps.csrf.tokenFor(sid) }
    : { signed_in: true, email: session.email, tier: CONSOLE_TIER, csrf_token: deps.csrf.tokenFor(sid) };
  return cookie === undefined ? { status, body } : { status, body, cookie };
}

/** After sign-in or sign-up: the new session's cookie (a new id, so no fixation). */
async function signedIn(deps: ConsoleDeps, exchange: ConsoleExchange, status: number, result: Result<string>): Promise<Result<ConsoleReply>> {
  if (!result.ok) return result;
  const sid = result.value;
  const session = (await deps.sessions.get(sid))!;
  const cookie = sessionCookie(sid, deps.sessions.maxAgeSeconds(session), exchange.secure);
  return { ok: true, value: sessionReply(status, deps, sid, session, cookie) };
}

const ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'get', path: '/console/api/session', name: 'console_session', signedIn: false,
    run: async ({ exchange, session }, deps) => {
      if (session !== undefined || exchange.sid !== '') return sessionReply(200, deps, exchange.sid, session);
      // A first visit gets a random, unstored id, so sign-in and sign-up can carry a CSRF token too.
      const sid = newSessionId();
      return sessionReply(200, deps, sid, undefined, sessionCookie(sid, null, exchange.secure));
    },
  },
  {
    method: 'post', path: '/console/api/signup', name: 'console_signup', signedIn: false,
    run: async ({ exchange, body }, deps) =>
      signedIn(deps, exchange, 201, await deps.service.signUp(body['email'], body['password'], exchange.clientIp)),
  },
  {
    method: 'post', path: '/console/api/signin', name: 'console_signin', signedIn: false,
    run: async ({ exchange, body }, deps) =>
      signedIn(deps, exchange, 200, await deps.service.signIn(body['email'], body['password'], exchange.clientIp)),
  },
  {
    method: 'post', path: '/console/api/signout', name: 'console_signout', signedIn: false,
    run: async ({ exchange }, deps) => {
      await deps.sessions.destroy(exchange.sid);
      const sid = newSessionId();
      return sessionReply(200, deps, sid, undefined, sessionCookie(sid, null, exchange.secure));
    },
  },
  {
    method: 'get', path: '/console/api/keys', name: 'console_keys', signedIn: true,
    run: async ({ session }, deps) => ({ status: 200, body: { keys: await deps.service.listKeys(session!) } }),
  },
  {
    method: 'post', path: '/console/api/keys', name: 'console_keys', signedIn: true,
    run: async ({ session, body }, deps) => {
      const created = await deps.service.createKey(session!, body['name']);
      return created.ok ? { ok: true, value: { status: 201, body: created.value } } : created;
    },
  },
  {
    method: 'post', path: '/console/api/keys/revoke', name: 'console_revoke', signedIn: true,
    run: async ({ session, body }, deps) => {
      const revoked = await deps.service.revokeKey(session!, body['id']);
      return revoked.ok ? { ok: true, value: { status: 200, body: { record: revoked.value } } } : revoked;
    },
  },
  {
    method: 'get', path: '/console/api/usage', name: 'console_usage', signedIn: true,
    run: async ({ session }, deps) => ({ status: 200, body: await deps.service.usage(session!) }),
  },
];

async function serve(exchange: ConsoleExchange, endpoint: Endpoint, deps: ConsoleDeps): Promise<void> {
  if (endpoint.method === 'post') {
    // Checked before the body is read: a forged request costs nothing.
    if (!looksSameOrigin(exchange.origin, exchange.fetchSite, exchange.host) || !deps.csrf.verify(exchange.sid, exchange.csrfToken)) {
      exchange.fail(consoleFailure('CSRF_REJECTED'));
      return;
    }
  }
  // The body is taken in now: a shared session store (Redis) answers after this handler returned.
  if (endpoint.method === 'post') exchange.collectBody();
  const session = exchange.sid === '' ? undefined : await deps.sessions.get(exchange.sid);
  if (endpoint.signedIn && session === undefined) {
    exchange.fail(consoleFailure('NOT_SIGNED_IN'));
    return;
  }
  const body = endpoint.method === 'post' ? await exchange.readJson() : NO_BODY;
  if (body === undefined) return; // already answered
  const outcome = await endpoint.run({ exchange, session, body }, deps);
  if ('ok' in outcome) {
    if (outcome.ok) exchange.reply(outcome.value);
    else exchange.fail(outcome.failure);
  } else {
    exchange.reply(outcome);
  }
}

export function consoleRoutes(ctx: HttpContext, deps: ConsoleDeps): RouteEntry[] {
  return ENDPOINTS.map((endpoint) => ({
    method: endpoint.method,
    path: endpoint.path,
    name: endpoint.name,
    handler: (res: HttpResponse, req: HttpRequest) => {
      const exchange = new ConsoleExchange(res, req, ctx, endpoint.name);
      serve(exchange, endpoint, deps).catch((error: unknown) => {
        ctx.logger.log(error instanceof StoreUnavailable ? 'warn' : 'error', 'console request failed', { requestId: exchange.requestId, route: endpoint.name, fault: describeFault(error) });
        // A shared store that does not answer (Redis, PostgreSQL): a retryable 503, not a bug.
        if (error instanceof StoreUnavailable) exchange.fail(consoleFailure('BUSY', 'The console cannot reach its data store; try again in a moment.', 2));
        else exchange.fail(consoleFailure('INTERNAL_ERROR'));
      });
    },
  }));
}

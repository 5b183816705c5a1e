// GET /v1/usage (keyed): this month's repairs against the key's quota, answered at once from the
// accounts layer's in-memory counters. It bypasses the admission hook: asking how much of the
// limit is left must not use the limit up, and the answer costs about as much as /health. Its
// X-RateLimit-* headers say what the key's next request would find, without counting this one.
import build from 'fast-json-stringify';
import { makeError } from '../contracts/error-codes.js';
import type { UsageReport } from './quota.js';
import type { AuthResult } from '../http/authentication-hook.js';
import type { KeyRecord } from './key-store.js';
import { fallbackContract } from '../contracts/contract.js';
import { renderError } from '../contracts/render.js';
import type { HttpContext } from '../http/http-context.js';
import { requestIdFor } from '../http/request-id.js';
import { observeNonRepair } from '../http/simple-answer.js';
import { JSON_TYPE, writeAnswer, type HeaderList } from '../http/response-writer.js';
import type { RouteEntry } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/load-uws.js';
import { describeFault } from '../observe/request-record.js';

export interface UsageSource {
  usageFor(record: KeyRecord): UsageReport;
  /** The key's X-RateLimit-* headers without counting a request (null: the unlimited tier has none). */
  limitHeadersFor(record: KeyRecord): HeaderList | null;
}

const nullableInt = { type: ['integer', 'null'] };
const usageSchema: object = {
  type: 'object',
  required: ['tier', 'month', 'count', 'quota', 'remaining', 'resets_at'],
  properties: {
    tier: { type: 'string' },
    month: { type: 'string' },
    count: { type: 'integer' },
    quota: nullableInt,
    remaining: nullableInt,
    resets_at: { type: 'string' },
    overage: { type: 'integer' },
    overage_cost_usd: { type: 'number' },
  },
};
const serializeUsage = build(usageSchema) as (report: UsageReport) => string;

const INTERNAL = makeError('INTERNAL_ERROR');

export function usageRoutes(ctx: HttpContext, usage: UsageSource): RouteEntry[] {
  const contract = fallbackContract(ctx.config.contract);
  const respond = (res: HttpResponse, requestId: string, start: number, auth: AuthResult | null): void => {
    let keyId: string | null = null;
    let outcome = 'ok';
    let body: string;
    let fault: unknown = null;
    let headers: HeaderList | null = null;
    try {
      if (auth === null) throw new Error('authentication failed');
      if (auth.ok) {
        keyId = auth.key.id;
        body = serializeUsage(usage.usageFor(auth.key));
        headers = usage.limitHeadersFor(auth.key);
      } else {
        const rendered = renderError(auth.error, contract, null, 0);
        body = rendered.body;
        outcome = rendered.errorCode ?? auth.error.code;
      }
    } catch (error) {
      // Never let a bug here take the uWS thread down: this request fails, the process does not.
      fault = error;
      const rendered = renderError(INTERNAL, contract, null, 0);
      body = rendered.body;
      outcome = 'INTERNAL_ERROR';
    }
    if (fault !== null) ctx.logger.log('error', 'usage failed', { requestId, fault: describeFault(fault) });
    writeAnswer(res, 200, JSON_TYPE, body, requestId, headers, ctx.lifecycle.draining);
    observeNonRepair(ctx, 'usage', requestId, keyId, Date.now(), start, 200, outcome);
  };
  const handler = (res: HttpResponse, req: HttpRequest): void => {
    const start = performance.now();
    const requestId = requestIdFor(req.getHeader('x-request-id'));
    let auth: AuthResult | Promise<AuthResult> | null;
    try {
      auth = ctx.authentication.authenticate(req.getHeader('authorization'));
    } catch {
      auth = null;
    }
    if (!(auth instanceof Promise)) {
      respond(res, requestId, start, auth);
      return;
    }
    // The key store is asking storage about an unknown key: answer when it knows.
    let aborted = false;
    ctx.lifecycle.begin();
    res.onAborted(() => {
      aborted = true;
      ctx.lifecycle.end();
    });
    auth.then((settled) => settled, () => null).then((settled) => {
      if (aborted) return;
      res.cork(() => respond(res, requestId, start, settled));
      ctx.lifecycle.end();
    });
  };
  return [{ method: 'get', path: '/v1/usage', name: 'usage', handler }];
}

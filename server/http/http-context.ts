// What every handler shares: configuration, the authentication and admission hooks, observers.
import type { Config } from '../config/load-config.js';
import type { Logger } from '../observe/logger.js';
import type { RequestObserver, RequestRecord } from '../observe/request-record.js';
import type { AdmissionHook } from './admission-hook.js';
import type { AuthenticationHook } from './authentication-hook.js';
import type { ClientIpResolver } from './client-ip.js';
import type { Lifecycle } from './lifecycle.js';

export interface HttpContext {
  readonly config: Config;
  readonly authentication: AuthenticationHook;
  readonly admission: AdmissionHook;
  readonly clientIp: ClientIpResolver;
  readonly observers: readonly RequestObserver[];
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
}

export function notifyObservers(ctx: HttpContext, record: RequestRecord): void {
  const { observers } = ctx;
  for (let i = 0; i < observers.length; i++) {
    try {
      observers[i]!.onRequest(record);
    } catch (error) {
      // An observer's bug must not turn an answered request into a crash.
      ctx.logger.log('error', 'request observer failed', { error: (error as Error)?.name ?? 'unknown' });
    }
  }
}

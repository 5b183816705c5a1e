// The console's sign-in limit (login-limiter.ts) counted in Redis (REDIS_URL), so the limits hold
// across nodes: per client IP (IPv6 per /64) at most `perIp` sign-in and sign-up attempts per
// window, per email at most `perEmail` failed sign-ins per window. Each check-and-count is one Lua
// script (atomic across nodes). While Redis is unreachable the node's own in-memory limiter decides,
// so sign-ins never wait on a dead store and are still limited per node.
import type { Redis } from 'ioredis';
import { limitKeyForIp } from '../../accounts/client-ip.js';
import type { StoreHealth } from '../../cluster/store-health.js';
import { LOGIN_LIMIT_DEFAULTS, LoginLimiter, type LoginLimiterOptions, type SignInLimiter } from './login-limiter.js';

// KEYS[1]: the IP's attempts, KEYS[2]: the email's failures ('' = a sign-up, no email).
// ARGV: perIp, perEmail, window ms. Returns 0 (counted: go ahead) or the seconds to wait.
const BEGIN_LUA = `
local function wait(key, limit)
  local n = tonumber(redis.call('GET', key) or '0')
  if n < limit then return 0 end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then return 0 end
  return math.max(1, math.ceil(ttl / 1000))
end
local w = wait(KEYS[1], tonumber(ARGV[1]))
if KEYS[2] ~= '' then w = math.max(w, wait(KEYS[2], tonumber(ARGV[2]))) end
if w > 0 then return w end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 0
`;
// KEYS[1]: the email's failures. ARGV[1]: window ms.
const FAILED_LUA = `
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0
`;

interface Commands {
  jmLoginBegin(ipKey: string, emailKey: string, perIp: number, perEmail: number, windowMs: number): Promise<number>;
  jmLoginFailed(emailKey: string, windowMs: number): Promise<number>;
}

export interface SharedLoginLimiterOptions extends LoginLimiterOptions {
  redis: Redis;
  health: StoreHealth;
  keyPrefix?: string;
}

export class SharedLoginLimiter implements SignInLimiter {
  readonly local: LoginLimiter;
  readonly #redis: Redis & Commands;
  readonly #health: StoreHealth;
  readonly #perIp: number;
  readonly #perEmail: number;
  readonly #windowMs: number;
  readonly #prefix: string;

  constructor(options: SharedLoginLimiterOptions) {
    this.local = new LoginLimiter(options);
    this.#health = options.health;
    this.#perIp = options.perIp ?? LOGIN_LIMIT_DEFAULTS.perIp;
    this.#perEmail = options.perEmail ?? LOGIN_LIMIT_DEFAULTS.perEmail;
    this.#windowMs = options.windowMs ?? LOGIN_LIMIT_DEFAULTS.windowMs;
    this.#prefix = options.keyPrefix ?? 'jm:login:';
    options.redis.defineCommand('jmLoginBegin', { numberOfKeys: 2, lua: BEGIN_LUA });
    options.redis.defineCommand('jmLoginFailed', { numberOfKeys: 1, lua: FAILED_LUA });
    this.#redis = options.redis as Redis & Commands;
  }

  async begin(ip: string, email: string | null): Promise<number> {
    if (!this.#health.up) return this.local.begin(ip, email);
    const ipKey = `${this.#prefix}ip:${limitKeyForIp(ip)}`;
    const emailKey = email === null ? '' : `${this.#prefix}email:${email}`;
    try {
      return Number(await this.#health.track(this.#redis.jmLoginBegin(ipKey, emailKey, this.#perIp, this.#perEmail, this.#windowMs)));
    } catch {
      return this.local.begin(ip, email);
    }
  }

  async failed(email: string): Promise<void> {
    this.local.failed(email);
    if (!this.#health.up) return;
    await this.#health.track(this.#redis.jmLoginFailed(`${this.#prefix}email:${email}`, this.#windowMs)).catch(() => {});
  }

  async succeeded(email: string): Promise<void> {
    this.local.succeeded(email);
    if (!this.#health.up) return;
    await this.#health.track(this.#redis.del(`${this.#prefix}email:${email}`)).catch(() => {});
  }
}

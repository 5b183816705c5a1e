// The console's sign-in limit (login-limiter.ts, the same rules and defaults) kept in Redis
// (REDIS_URL), so it holds across nodes: the per-IP attempt window, the per-IP sign-up window, the
// doubling backoff per (account, IP), the per-account failure ceiling and the owner's known IPs.
// Each check-and-count is one Lua script (atomic across nodes), timed by Redis's clock. While Redis
// is unreachable the node's own in-memory limiter decides, so sign-ins never wait on a dead store
// and are still limited per node.
import type { Redis } from 'ioredis';
import { limitKeyForIp } from '../../http/client-ip.js';
import type { StoreHealth } from '../../stores/store-health.js';
import { KNOWN_IPS_PER_ACCOUNT, LOGIN_LIMIT_DEFAULTS, LoginLimiter, type LoginLimiterOptions, type SignInLimit } from './login-limiter.js';

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: ip attempts, ip sign-ups, (account, ip) backoff, account failures, account known IPs.
// ARGV: signup ('1'/'0'), ip member, perIp, windowMs, signUpsPerIp, signUpWindowMs, perEmail,
// freeFailures, maxDelayMs, knownIpMs. Returns 0 (counted: go ahead) or the seconds to wait.
const BEGIN_LUA = `${NOW}
local function wait(key, limit)
  local n = tonumber(redis.call('GET', key) or '0')
  if n < limit then return 0 end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then return 0 end
  return math.max(1, math.ceil(ttl / 1000))
end
local function hit(key, windowMs)
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, windowMs) end
end
local w = wait(KEYS[1], tonumber(ARGV[3]))
if ARGV[1] == '1' then
  w = math.max(w, wait(KEYS[2], tonumber(ARGV[5])))
else
  local failures = tonumber(redis.call('HGET', KEYS[3], 'n') or '0')
  local free = tonumber(ARGV[8])
  if failures >= free then
    local delay = math.min(tonumber(ARGV[9]), 1000 * 2 ^ (failures - free))
    local left = tonumber(redis.call('HGET', KEYS[3], 'at') or '0') + delay - now
    if left > 0 then w = math.max(w, math.ceil(left / 1000)) end
  end
  local ceiling = wait(KEYS[4], tonumber(ARGV[7]))
  if ceiling > 0 then
    local seen = redis.call('ZSCORE', KEYS[5], ARGV[2])
    if not seen or now >= tonumber(seen) + tonumber(ARGV[10]) then w = math.max(w, ceiling) end
  end
end
if w > 0 then return w end
hit(KEYS[1], ARGV[4])
if ARGV[1] == '1' then hit(KEYS[2], ARGV[6]) end
return 0
`;
// KEYS: (account, ip) backoff, account failures. ARGV: ceilingWindowMs, forgetMs.
const FAILED_LUA = `${NOW}
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'at', now)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0
`;
// KEYS: (account, ip) backoff, account known IPs. ARGV: ip member, knownIpMs, IPs kept.
const SUCCEEDED_LUA = `${NOW}
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 0
`;

interface Commands {
  jmSignInBegin(...args: Array<string | number>): Promise<number>;
  jmSignInFailed(...args: Array<string | number>): Promise<number>;
  jmSignInSucceeded(...args: Array<string | number>): Promise<number>;
}

export interface SharedLoginLimiterOptions extends LoginLimiterOptions {
  redis: Redis;
  health: StoreHealth;
  keyPrefix?: string;
}

export class SharedLoginLimiter implements SignInLimit {
  readonly local: LoginLimiter;
  readonly #redis: Redis & Commands;
  readonly #health: StoreHealth;
  readonly #o: Required<Omit<LoginLimiterOptions, 'clock' | 'maxEntries'>>;
  readonly #prefix: string;

  constructor(options: SharedLoginLimiterOptions) {
    this.local = new LoginLimiter(options);
    this.#health = options.health;
    const d = LOGIN_LIMIT_DEFAULTS;
    this.#o = {
      perIp: options.perIp ?? d.perIp, windowMs: options.windowMs ?? d.windowMs,
      signUpsPerIp: options.signUpsPerIp ?? d.signUpsPerIp, signUpWindowMs: options.signUpWindowMs ?? d.signUpWindowMs,
      perEmail: options.perEmail ?? d.perEmail, ceilingWindowMs: options.ceilingWindowMs ?? d.ceilingWindowMs,
      freeFailures: options.freeFailures ?? d.freeFailures, maxDelayMs: options.maxDelayMs ?? d.maxDelayMs,
      forgetMs: options.forgetMs ?? d.forgetMs, knownIpMs: options.knownIpMs ?? d.knownIpMs,
    };
    this.#prefix = options.keyPrefix ?? 'jm:signin:';
    options.redis.defineCommand('jmSignInBegin', { numberOfKeys: 5, lua: BEGIN_LUA });
    options.redis.defineCommand('jmSignInFailed', { numberOfKeys: 2, lua: FAILED_LUA });
    options.redis.defineCommand('jmSignInSucceeded', { numberOfKeys: 2, lua: SUCCEEDED_LUA });
    this.#redis = options.redis as Redis & Commands;
  }

  async begin(ip: string, email: string | null): Promise<number> {
    if (!this.#health.up) return this.local.begin(ip, email);
    const ipKey = limitKeyForIp(ip);
    const account = email ?? '';
    const o = this.#o;
    try {
      return Number(await this.#health.track(this.#redis.jmSignInBegin(
        this.#key('ip', ipKey), this.#key('signup', ipKey), this.#key('backoff', `${account} ${ipKey}`),
        this.#key('failures', account), this.#key('known', account),
        email === null ? '1' : '0', ipKey, o.perIp, o.windowMs, o.signUpsPerIp, o.signUpWindowMs, o.perEmail,
        o.freeFailures, o.maxDelayMs, o.knownIpMs)));
    } catch {
      return this.local.begin(ip, email);
    }
  }

  async failed(email: string, ip: string): Promise<void> {
    this.local.failed(email, ip);
    if (!this.#health.up) return;
    const ipKey = limitKeyForIp(ip);
    await this.#health.track(this.#redis.jmSignInFailed(this.#key('backoff', `${email} ${ipKey}`), this.#key('failures', email),
      this.#o.ceilingWindowMs, this.#o.forgetMs)).catch(() => {});
  }

  async succeeded(email: string, ip: string): Promise<void> {
    this.local.succeeded(email, ip);
    if (!this.#health.up) return;
    const ipKey = limitKeyForIp(ip);
    await this.#health.track(this.#redis.jmSignInSucceeded(this.#key('backoff', `${email} ${ipKey}`), this.#key('known', email),
      ipKey, this.#o.knownIpMs, KNOWN_IPS_PER_ACCOUNT)).catch(() => {});
  }

  #key(kind: string, id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }
}

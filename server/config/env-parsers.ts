// Parsers for single environment variables. Each returns the parsed value or throws a
// ConfigProblem naming the variable, so load-config.ts can report every bad variable at once.
import { isIP } from 'node:net';
import { MAX_KEY_LENGTH } from './key-length.js';
import { isTierName, TIER_NAMES, type TierName } from './tiers.js';

export class ConfigProblem extends Error {
  constructor(readonly variable: string, detail: string, raw: string | undefined) {
    super(`${variable} ${detail}${raw === undefined ? '' : ` (got ${JSON.stringify(raw)})`}`);
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Unset and blank both mean "use the default": `FOO= npm start` should not be an error. */
function rawValue(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

export function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigProblem(name, `must be a whole number from ${min} to ${max}`, raw);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigProblem(name, `must be a whole number from ${min} to ${max}`, raw);
  return value;
}

export function readChoice<T extends string>(env: Env, name: string, fallback: T, choices: readonly T[]): T {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase() as T;
  if (!choices.includes(value)) throw new ConfigProblem(name, `must be one of ${choices.join(', ')}`, raw);
  return value;
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

export function readFlag(env: Env, name: string, fallback: boolean): boolean {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  const word = raw.toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  throw new ConfigProblem(name, 'must be 1 or 0 (true/false)', raw);
}

export function readString(env: Env, name: string, fallback: string): string {
  return rawValue(env, name) ?? fallback;
}

/** A shared secret such as a bearer token: unset is null; messages never echo it. */
export function readSecret(env: Env, name: string, minLength: number, maxLength: number): string | null {
  const raw = rawValue(env, name);
  if (raw === undefined) return null;
  if (raw.length < minLength || raw.length > maxLength || /\s/.test(raw)) {
    throw new ConfigProblem(name, `must be ${minLength} to ${maxLength} characters without spaces`, undefined);
  }
  return raw;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function readHost(env: Env, name: string, fallback: string): string {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  if (isIP(raw) === 0 && !HOSTNAME.test(raw)) throw new ConfigProblem(name, 'must be an IP address or a host name', raw);
  return raw;
}

/** One API_KEYS entry: a key the server seeds into its key store at start. */
export interface SeedKey { readonly key: string; readonly tier: TierName }

/** `key:tier,key:tier`. Messages never echo a whole key: only its first four characters. */
export function readApiKeys(env: Env, name: string): SeedKey[] {
  const raw = rawValue(env, name);
  if (raw === undefined) return [];
  const seeds: SeedKey[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const colon = entry.lastIndexOf(':');
    const key = colon > 0 ? entry.slice(0, colon).trim() : entry;
    const tier = colon > 0 ? entry.slice(colon + 1).trim().toLowerCase() : '';
    const shown = `${key.slice(0, 4)}…`;
    if (colon <= 0 || !isTierName(tier)) {
      throw new ConfigProblem(name, `entry "${shown}" must be key:tier with tier one of ${TIER_NAMES.join(', ')}`, undefined);
    }
    if (key.length > MAX_KEY_LENGTH || /[\s,]/.test(key)) {
      throw new ConfigProblem(name, `key "${shown}" must be 1 to ${MAX_KEY_LENGTH} characters without spaces`, undefined);
    }
    if (seen.has(key)) throw new ConfigProblem(name, `key "${shown}" is listed twice`, undefined);
    seen.add(key);
    seeds.push(Object.freeze({ key, tier }));
  }
  return seeds;
}

/** Proxies whose X-Forwarded-For is believed: IP addresses or CIDR ranges, comma-separated. */
export function readProxyList(env: Env, name: string): string[] {
  const raw = rawValue(env, name);
  if (raw === undefined) return [];
  const list: string[] = [];
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigProblem(name, 'must list IP addresses or CIDR ranges (e.g. 10.0.0.0/8,::1)', raw);
    }
    list.push(entry);
  }
  return list;
}

/**
 * A URL variable, parsed once: `accepts` says which URLs are meant. `echo` false keeps the value out
 * of the error (a database URL may hold a password).
 */
function readUrl(env: Env, name: string, accepts: (url: URL) => boolean, mustBe: string, echo: boolean): { raw: string; url: URL } | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || !accepts(url)) throw new ConfigProblem(name, mustBe, echo ? raw : undefined);
  return { raw, url };
}

/** `redis://host:port/db`, `rediss://…` (TLS) or `unix:///path/redis.sock` (docs/scaling.md). */
export function readRedisUrl(env: Env, name: string): string | undefined {
  return readUrl(
    env, name,
    (url) => (url.protocol === 'unix:' ? url.pathname.length > 1 : (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== ''),
    'must be a URL: redis://host:port/db, rediss://host:port/db or unix:///path/redis.sock', false,
  )?.raw;
}

/** `postgres://user[:password]@host:port/db`, also `?host=/socket/dir`. Never echoed (it may hold a password). */
export function readDatabaseUrl(env: Env, name: string): string | undefined {
  return readUrl(
    env, name, (url) => url.protocol === 'postgres:' || url.protocol === 'postgresql:',
    'must be a URL: postgres://user[:password]@host:port/db (or ?host=/socket/dir)', false,
  )?.raw;
}

/** A node's name: letters, digits, `-` and `_`, at most 32 (it appears in session ids and metrics). */
export function readNodeId(env: Env, name: string): string | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(raw)) throw new ConfigProblem(name, 'must be 1 to 32 letters, digits, - or _', raw);
  return raw;
}

/**
 * PEER_URL: an http base URL without a path, e.g. `http://10.0.0.5:8080`. Nodes forward to each
 * other in plain HTTP, authenticated and replay-protected but not encrypted (docs/scaling.md
 * "Between nodes"), so `https` is refused here rather than failing on the first forward.
 */
export function readPeerUrl(env: Env, name: string): string | undefined {
  const raw = rawValue(env, name);
  if (raw !== undefined && /^https:/i.test(raw)) {
    throw new ConfigProblem(name, 'must be an http:// URL: nodes talk plain HTTP to each other (authenticated with CLUSTER_SECRET, not encrypted); '
      + 'keep that traffic on a private network or a tunnel (docs/scaling.md)', raw);
  }
  return readUrl(env, name, (url) => url.protocol === 'http:' && (url.pathname === '/' || url.pathname === ''),
    'must be an http:// base URL without a path, such as http://10.0.0.5:8080', true)?.url.origin;
}

/**
 * UPSTREAM_URL: the OpenAI-compatible base URL the gateway forwards to, ending in `/v1` (the gateway
 * appends `/chat/completions`); http or https. Returned without a trailing slash. Never echoed: an
 * operator may have put credentials in it.
 */
export function readUpstreamUrl(env: Env, name: string): string | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigProblem(name, 'must be an http:// or https:// base URL ending in /v1, such as https://api.openai.com/v1', undefined);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !path.endsWith('/v1') || url.search !== '' || url.hash !== '') {
    throw new ConfigProblem(name, 'must be an http:// or https:// base URL ending in /v1, such as https://api.openai.com/v1', undefined);
  }
  return `${url.origin}${path}`;
}

/** `PROCESSES`: a whole number, or `auto` for one per core. */
export function readProcesses(env: Env, name: string, cores: number): number {
  const raw = rawValue(env, name);
  if (raw === undefined) return 1;
  if (raw.toLowerCase() === 'auto') return cores;
  return readInteger(env, name, 1, 1, 256);
}

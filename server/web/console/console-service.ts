// What the console does, apart from HTTP: sign-up, sign-in and sign-out, a user's API keys, and
// this month's usage. Every answer is a Result, never an exception, except for storage failures,
// which the route layer turns into INTERNAL_ERROR. The accounts layer is reused as it is: keys
// go through the same storage as the CLI and are pushed into the server's key cache at once.
import { displayPrefix, generateApiKey, hashApiKey, newKeyId, randomBase62 } from '../../accounts/api-key.js';
import { systemClock, type Clock } from '../../accounts/clock.js';
import { monthOf, nextMonthStart, type UsageReport } from '../../accounts/quota.js';
import { isUniqueViolation, type AccountsStorage, type StoredKey } from '../../accounts/storage/accounts-storage.js';
import { TIERS } from '../../config/tiers.js';
import { consoleFailure, type ConsoleFailure } from './console-errors.js';
import type { SignInLimit } from './login-limiter.js';
import { HasherBusy, type PasswordHasher } from './password.js';
import { passwordProblem } from './password-policy.js';
import type { ConsoleSessions, Session } from './sessions.js';

/** The parts of the accounts layer the console needs (server/accounts/index.ts `Accounts` fits). */
export interface ConsoleAccounts {
  readonly storage: Pick<AccountsStorage, 'createUser' | 'findUserByEmail' | 'createUserKey' | 'listKeysByUser' | 'keyPrefixExists' | 'revokeKey'>;
  readonly keys: { refresh(force?: boolean): Promise<boolean> };
  readonly quota: { count(keyId: string): number };
}

export type Result<T> = { ok: true; value: T } | { ok: false; failure: ConsoleFailure };

export interface KeyView {
  id: string;
  prefix: string;
  name: string;
  tier: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The key's usage report (without team overage) plus the user's keys with their counts. */
export interface UsageView extends Pick<UsageReport, 'tier' | 'month' | 'count' | 'quota' | 'remaining' | 'resets_at'> {
  keys: Array<{ id: string; prefix: string; name: string; count: number }>;
}

/** Console sign-ups get the free tier: no payment card, nothing to choose. */
export const CONSOLE_TIER = 'free' as const;
/** Usage and limits are the account's whatever its keys; the cap keeps a leaked key's blast radius small. */
export const MAX_ACTIVE_KEYS = 5;
/** Keys an account may make in 24 hours (revoked ones included): rotation, not a key factory. */
export const MAX_KEYS_PER_DAY = 10;
const DAY_MS = 86_400_000;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const KEY_NAME = /^[^\p{Cc}\p{Cf}]{1,64}$/u;

const keysMadeToday = (keys: readonly StoredKey[], now: number): StoredKey[] => keys.filter((k) => k.createdAt > now - DAY_MS);

/** KEY_CREATION_LIMIT, free again when the oldest key made in the last day is a day old. */
function dayLimit(keys: readonly StoredKey[], now: number): ConsoleFailure {
  const today = keysMadeToday(keys, now);
  const oldest = today.length === 0 ? now : Math.min(...today.map((k) => k.createdAt));
  return consoleFailure('KEY_CREATION_LIMIT', undefined, Math.max(1, Math.ceil((oldest + DAY_MS - now) / 1000)));
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const fail = <T>(failure: ConsoleFailure): Result<T> => ({ ok: false, failure });
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function normalizeEmail(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

export function keyView(k: StoredKey): KeyView {
  return {
    id: k.id, prefix: k.prefix, name: k.name, tier: k.tier,
    created_at: iso(k.createdAt)!, last_used_at: iso(k.lastUsedAt), revoked_at: iso(k.revokedAt),
  };
}

export interface ConsoleServiceOptions {
  accounts: ConsoleAccounts;
  sessions: ConsoleSessions;
  hasher: PasswordHasher;
  limiter: SignInLimit;
  clock?: Clock;
}

export class ConsoleService {
  readonly #accounts: ConsoleAccounts;
  readonly #sessions: ConsoleSessions;
  readonly #hasher: PasswordHasher;
  readonly #limiter: SignInLimit;
  readonly #clock: Clock;
  /** Key changes run one at a time per user, so the active-key limit holds under double clicks. */
  readonly #keyLocks = new Map<string, Promise<unknown>>();

  constructor(options: ConsoleServiceOptions) {
    this.#accounts = options.accounts;
    this.#sessions = options.sessions;
    this.#hasher = options.hasher;
    this.#limiter = options.limiter;
    this.#clock = options.clock ?? systemClock;
  }

  /** Creates the user and signs them in; returns the new session id. */
  async signUp(rawEmail: unknown, password: unknown, ip: string): Promise<Result<string>> {
    const email = normalizeEmail(rawEmail);
    if (email === null) return fail(consoleFailure('INVALID_EMAIL'));
    const weak = passwordProblem(password);
    if (weak !== null || typeof password !== 'string') return fail(consoleFailure('WEAK_PASSWORD', weak ?? undefined));
    const wait = await this.#limiter.begin(ip, null);
    if (wait > 0) return fail(consoleFailure('TOO_MANY_ATTEMPTS', 'Too many sign-ups from this network; try again later.', wait));
    const { storage } = this.#accounts;
    if ((await storage.findUserByEmail(email)) !== undefined) return fail(consoleFailure('EMAIL_TAKEN'));
    const passwordHash = await this.#hashed(() => this.#hasher.hash(password));
    if (typeof passwordHash !== 'string') return fail(passwordHash);
    const id = 'usr_' + randomBase62(16);
    try {
      await storage.createUser({ id, email, passwordHash, createdAt: this.#clock.now() });
    } catch (error) {
      // Two sign-ups for one address at once: the UNIQUE index lets one through.
      if (isUniqueViolation(error)) return fail(consoleFailure('EMAIL_TAKEN'));
      throw error;
    }
    await this.#limiter.succeeded(email, ip); // the address the account was made from is the owner's
    return ok(await this.#sessions.create(id, email));
  }

  /** Checks the password (under the sign-in limit); returns a new session id. */
  async signIn(rawEmail: unknown, password: unknown, ip: string): Promise<Result<string>> {
    const email = normalizeEmail(rawEmail);
    if (email === null || typeof password !== 'string' || password.length > 1024) {
      return fail(consoleFailure('INVALID_CREDENTIALS'));
    }
    const wait = await this.#limiter.begin(ip, email);
    if (wait > 0) return fail(consoleFailure('TOO_MANY_ATTEMPTS', undefined, wait));
    const user = await this.#accounts.storage.findUserByEmail(email);
    const verified = await this.#hashed(() =>
      user === undefined ? this.#hasher.verifyDecoy(password) : this.#hasher.verify(password, user.passwordHash));
    if (typeof verified !== 'boolean') return fail(verified);
    if (!verified || user === undefined) {
      await this.#limiter.failed(email, ip);
      return fail(consoleFailure('INVALID_CREDENTIALS'));
    }
    await this.#limiter.succeeded(email, ip);
    return ok(await this.#sessions.create(user.id, user.email));
  }

  async listKeys(session: Session): Promise<KeyView[]> {
    return (await this.#accounts.storage.listKeysByUser(session.userId)).map(keyView);
  }

  /** A new free-tier key owned by the user. The full key is in this answer and nowhere else. */
  createKey(session: Session, rawName: unknown): Promise<Result<{ key: string; record: KeyView }>> {
    const name = typeof rawName === 'string' ? rawName.trim() : '';
    if (!KEY_NAME.test(name)) return Promise.resolve(fail(consoleFailure('INVALID_KEY_NAME')));
    return this.#locked(session.userId, async () => {
      const { storage, keys } = this.#accounts;
      const owned = await storage.listKeysByUser(session.userId);
      // Checked here for the answer's precedence and wait; createUserKey below holds both limits
      // in one transaction, across nodes too.
      if (owned.filter((k) => k.revokedAt === null).length >= MAX_ACTIVE_KEYS) return fail(consoleFailure('KEY_LIMIT_REACHED'));
      const now = this.#clock.now();
      if (keysMadeToday(owned, now).length >= MAX_KEYS_PER_DAY) return fail(dayLimit(owned, now));
      // Display prefixes stay unique, as the CLI keeps them, so `key revoke <prefix>` names one key.
      let key = generateApiKey();
      while (await storage.keyPrefixExists(displayPrefix(key))) key = generateApiKey();
      const stored = await storage.createUserKey({
        id: newKeyId(), hash: hashApiKey(key), prefix: displayPrefix(key), name, tier: CONSOLE_TIER,
        userId: session.userId, createdAt: this.#clock.now(),
      }, { maxActive: MAX_ACTIVE_KEYS, maxPerDay: MAX_KEYS_PER_DAY, dayMs: DAY_MS });
      if (stored === 'active-limit') return fail(consoleFailure('KEY_LIMIT_REACHED'));
      if (stored === 'day-limit') return fail(dayLimit(await storage.listKeysByUser(session.userId), this.#clock.now()));
      await keys.refresh(); // usable at once, not after the next 500 ms probe
      return ok({ key, record: keyView(stored) });
    });
  }

  revokeKey(session: Session, id: unknown): Promise<Result<KeyView>> {
    if (typeof id !== 'string' || id.length > 64) return Promise.resolve(fail(consoleFailure('KEY_NOT_FOUND')));
    return this.#locked(session.userId, async () => {
      const { storage, keys } = this.#accounts;
      const owned = await storage.listKeysByUser(session.userId);
      if (!owned.some((k) => k.id === id && k.revokedAt === null)) return fail(consoleFailure('KEY_NOT_FOUND'));
      const { revoked } = await storage.revokeKey(id, this.#clock.now());
      if (revoked === null) return fail(consoleFailure('KEY_NOT_FOUND'));
      await keys.refresh(); // refused from now on, not after the next probe
      return ok(keyView(revoked));
    });
  }

  /** This month's repairs of the account (all its keys, revoked ones included), against the tier's quota. */
  async usage(session: Session): Promise<UsageView> {
    const owned = await this.#accounts.storage.listKeysByUser(session.userId);
    const now = this.#clock.now();
    const perKey = owned.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, count: this.#accounts.quota.count(k.id) }));
    // The account's own counter is what the quota checks (server/accounts/quota.ts).
    const count = this.#accounts.quota.count(session.userId);
    const quota = TIERS[CONSOLE_TIER].monthlyQuota;
    return {
      tier: CONSOLE_TIER,
      month: monthOf(now),
      count,
      quota,
      remaining: quota === null ? null : Math.max(0, quota - count),
      resets_at: new Date(nextMonthStart(now)).toISOString(),
      keys: perKey,
    };
  }

  async #hashed<T>(work: () => Promise<T>): Promise<T | ConsoleFailure> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof HasherBusy) return consoleFailure('BUSY', undefined, 2);
      throw error;
    }
  }

  async #locked<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#keyLocks.get(userId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.catch(() => undefined);
    this.#keyLocks.set(userId, settled);
    try {
      return await run;
    } finally {
      if (this.#keyLocks.get(userId) === settled) this.#keyLocks.delete(userId);
    }
  }
}

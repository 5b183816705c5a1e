// The accounts storage boundary. Only start-up, the CLI and background flushers call it; the
// request path reads in-memory state (CachedKeyStore, QuotaTracker, MetadataLog buffers). Every
// method is async so a PostgreSQL or Redis implementation can be dropped in unchanged; the SQLite
// one does its work synchronously inside the call and returns a settled promise.
import type { TierName } from '../../config/tiers.js';

/** Times are epoch milliseconds. */
export interface StoredKey {
  id: string;
  hash: string;
  prefix: string;
  name: string;
  tier: TierName;
  userId: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface NewKey {
  id: string;
  hash: string;
  prefix: string;
  name: string;
  tier: TierName;
  userId?: string | null;
  createdAt: number;
}

export type SeedOutcome = 'inserted' | 'updated' | 'unchanged' | 'revoked';

export interface UserKeyLimits { maxActive: number; maxPerDay: number; dayMs: number }

export interface UsageDelta { keyId: string; month: string; count: number }
export interface LastUsed { keyId: string; at: number }

export type Contract = 'envelope' | 'compact';
export type LoggedConfidence = 'high' | 'medium' | 'low' | 'n/a';

/** One request's metadata. Deliberately has no field that could carry input or output text. */
export interface MetadataRow {
  time: number;
  keyId: string | null;
  endpoint: string;
  contract: Contract;
  success: boolean;
  errorCode: string | null;
  confidence: LoggedConfidence | null;
  repairCounts: Readonly<Record<string, number>>;
  inputBytes: number;
  latencyMs: number;
  /**
   * The row's identity where its writer retries (the metadata log: its instance and the row's
   * sequence number). PostgreSQL keeps one row per identity, so a batch written again after a
   * write that timed out on this side but committed there adds nothing (docs/reliability.md).
   */
  rowKey?: string;
}

export interface StoredUser { id: string; email: string; passwordHash: string; createdAt: number }

export interface AccountsStorage {
  // keys
  createKey(key: NewKey): Promise<StoredKey>;
  /**
   * A user's key, created only while the user has fewer than `maxActive` unrevoked keys and made
   * fewer than `maxPerDay` in the `dayMs` before `key.createdAt`; otherwise which limit refused it.
   * One transaction, so the limits hold for concurrent calls on any node.
   */
  createUserKey(key: NewKey & { userId: string }, limits: UserKeyLimits): Promise<StoredKey | 'active-limit' | 'day-limit'>;
  /** API_KEYS seeding: insert, or update the tier of the key with this hash. Never un-revokes. */
  seedKey(key: NewKey): Promise<SeedOutcome>;
  listKeys(): Promise<StoredKey[]>;
  /** One user's keys, revoked ones included, oldest first (the web console). */
  listKeysByUser(userId: string): Promise<StoredKey[]>;
  /** Whether any key, revoked or not, has this display prefix (prefixes are kept unique). */
  keyPrefixExists(prefix: string): Promise<boolean>;
  /** Revokes the not-yet-revoked keys whose id or display prefix equals `idOrPrefix`, if exactly one matches. */
  revokeKey(idOrPrefix: string, at: number): Promise<{ revoked: StoredKey | null; matches: StoredKey[] }>;
  findKeyByHash(hash: string): Promise<StoredKey | undefined>;
  loadAllActiveKeys(): Promise<StoredKey[]>;
  /** Bumped by every key create/seed/revoke: a cheap "did anything change" probe. */
  keysVersion(): Promise<number>;
  touchLastUsed(batch: readonly LastUsed[]): Promise<void>;
  // usage
  /**
   * Adds the deltas. With `batchId`, at most once per id: a flush retried after a write that
   * timed out here but committed in the database adds nothing the second time (PostgreSQL; SQLite
   * writes in-process, where a write that threw did not happen).
   */
  addMonthlyUsage(batch: readonly UsageDelta[], batchId?: string): Promise<void>;
  getMonthlyUsage(keyId: string, month: string): Promise<number>;
  /** All keys' counts for one month, for loading the in-memory counters. */
  loadMonthlyUsage(month: string): Promise<Map<string, number>>;
  // request metadata
  insertMetadata(rows: readonly MetadataRow[]): Promise<void>;
  /** Deletes at most `limit` rows older than `cutoff`; returns how many. */
  deleteMetadataOlderThan(cutoff: number, limit: number): Promise<number>;
  countMetadata(): Promise<number>;
  // users (the web console)
  createUser(user: StoredUser): Promise<StoredUser>;
  findUserByEmail(email: string): Promise<StoredUser | undefined>;
  /** Calls `onChange` soon after any process changes keys (storages that can push; others are polled). */
  watchKeys?(onChange: () => void): void;
  close(): Promise<void>;
}

/** A UNIQUE constraint refused the write (SQLite or PostgreSQL): e.g. two sign-ups for one address. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

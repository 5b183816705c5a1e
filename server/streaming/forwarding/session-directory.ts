// Which node holds each compact streaming session. Compact ids are the client's UUIDs, so they
// cannot name their owner the way issued envelope ids do; `jm:stream:<key id>:<uuid>` = owner node id,
// claimed atomically at start (which also makes "already open" hold across nodes) and removed when
// the session ends. It expires a little after the session's own TTL in case its owner died.
import type { Redis } from 'ioredis';
import { tableKeyOf } from '../session-table.js';

/** Past the session TTL, so the entry never disappears before the session it names. */
const MARGIN_MS = 2_000;

// Removes the entry only if it still names this node (a new start elsewhere may have taken the id).
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
// Takes the id if it is free, names this node (whose own table, checked first, says it is not open:
// a restarted node with the same NODE_ID) or names a node that is no longer live (its registry entry
// expired: server/streaming/forwarding/node-registry.ts); in one step, so two starts cannot both win.
// Both answer with the epoch of Redis's contents and its age (node-registry.ts), so the caller can
// tell a directory it may trust from one Redis has just come back empty with.
const EPOCH_AGE = `local e = redis.call('get', 'jm:epoch')
local age = -1
if e then
  local t = redis.call('time')
  age = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(e)
end`;
const CLAIM = `${EPOCH_AGE}
local owner = redis.call('get', KEYS[1])
if owner == false or owner == ARGV[1] or redis.call('exists', 'jm:node:' .. owner) == 0 then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('del', KEYS[2])
  return { 1, e or '', age }
end
return { 0, e or '', age }`;
const OWNER = `${EPOCH_AGE}
return { redis.call('get', KEYS[1]) or '', e or '', age }`;

/** Which contents of Redis an answer came from: its epoch ('' when none yet) and that epoch's age in ms. */
export interface DirectoryEpoch { epoch: string; ageMs: number }

// Writes an entry again after Redis lost it (a restart): only where nothing else is written.
const RESTORE = "return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') and 1 or 0";

const entryKey = (keyId: string, uuid: string): string => `jm:stream:${keyId}:${uuid.toLowerCase()}`;
/**
 * A session another node answered SESSION_NOT_FOUND for because its owner seemed gone (the owner
 * was frozen, not dead): `jm:gone:<table key>`. The owner reads it before it finalizes, and before
 * a push after it stalled, and then drops the session: a chunk the client was told was not applied
 * is never missing from an answer given as success.
 */
const goneKey = (tableKey: string): string => `jm:gone:${tableKey}`;
// KEYS: the gone marker, the compact directory entry (or the marker again for envelope ids). ARGV:
// this node. Owned unless marked gone, or the directory names another node (a start elsewhere took
// the id while this node seemed dead). No entry at all (expired, or Redis back empty) proves nothing.
const STILL_OWNED = `if redis.call('exists', KEYS[1]) == 1 then return 0 end
local owner = redis.call('get', KEYS[2])
if owner and owner ~= ARGV[1] and KEYS[2] ~= KEYS[1] then return 0 end
return 1`;

export class SessionDirectory {
  readonly #ttlMs: number;

  constructor(private readonly redis: Redis, readonly nodeId: string, sessionTtlMs: number) {
    this.#ttlMs = sessionTtlMs + MARGIN_MS;
  }

  /** claimed: this node now owns the id; false: the id is open on a live node. Rejects when Redis does not answer. */
  async claim(keyId: string, uuid: string): Promise<{ claimed: boolean } & DirectoryEpoch> {
    // KEYS[2]: a gone marker (goneKey) left by the session this id named before: the new one is not gone.
    const [claimed, epoch, age] = await this.redis.eval(CLAIM, 2, entryKey(keyId, uuid), goneKey(tableKeyOf('compact', keyId, uuid)), this.nodeId, this.#ttlMs) as [number, string, number];
    return { claimed: claimed === 1, epoch, ageMs: Number(age) };
  }

  /** The node holding this id, or null. Rejects when Redis does not answer. */
  async ownerOf(keyId: string, uuid: string): Promise<{ owner: string | null } & DirectoryEpoch> {
    const [owner, epoch, age] = await this.redis.eval(OWNER, 1, entryKey(keyId, uuid)) as [string, string, number];
    return { owner: owner === '' ? null : owner, epoch, ageMs: Number(age) };
  }

  /**
   * Writes these ids (this node's open sessions) again where Redis has none. Resolves true once every
   * one is written, false when Redis did not take them (away again: the next rejoin writes them).
   */
  async restore(ids: Iterable<readonly [string, string]>): Promise<boolean> {
    const pipeline = this.redis.pipeline();
    let count = 0;
    for (const [keyId, uuid] of ids) {
      pipeline.eval(RESTORE, 1, entryKey(keyId, uuid), this.nodeId, this.#ttlMs);
      count++;
    }
    if (count === 0) return true;
    try {
      const replies = await pipeline.exec();
      return replies !== null && replies.every(([error]) => error === null);
    } catch {
      return false;
    }
  }

  /** Marks a session given up as lost (goneKey); resolves when written. Rejects when Redis does not answer. */
  async markGone(tableKey: string): Promise<void> {
    await this.redis.set(goneKey(tableKey), this.nodeId, 'PX', this.#ttlMs);
  }

  /** Whether this node still owns the session (STILL_OWNED). Rejects when Redis does not answer. */
  async stillOwned(tableKey: string, compact: { keyId: string; uuid: string } | null): Promise<boolean> {
    const entry = compact === null ? goneKey(tableKey) : entryKey(compact.keyId, compact.uuid);
    return (await this.redis.eval(STILL_OWNED, 2, goneKey(tableKey), entry, this.nodeId)) === 1;
  }

  release(keyId: string, uuid: string): void {
    this.redis.eval(RELEASE, 1, entryKey(keyId, uuid), this.nodeId).catch(() => {
      // Redis away: the entry expires on its own, TTL after the session's start.
    });
  }
}

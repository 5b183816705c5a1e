// Which node holds each compact streaming session. Compact ids are the client's UUIDs, so they
// cannot name their owner the way issued envelope ids do; `jm:stream:<key id>:<uuid>` = owner node id,
// claimed atomically at start (which also makes "already open" hold across nodes) and removed when
// the session ends. It expires a little after the session's own TTL in case its owner died.
import type { Redis } from 'ioredis';

/** Past the session TTL, so the entry never disappears before the session it names. */
const MARGIN_MS = 2_000;

// Removes the entry only if it still names this node (a new start elsewhere may have taken the id).
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
// Takes the id if it is free, names this node (whose own table, checked first, says it is not open:
// a restarted node with the same NODE_ID) or names a node that is no longer live (its registry entry
// expired: server/streaming/forwarding/node-registry.ts); in one step, so two starts cannot both win.
const CLAIM = `local owner = redis.call('get', KEYS[1])
if owner == false or owner == ARGV[1] or redis.call('exists', 'jm:node:' .. owner) == 0 then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

// Writes an entry again after Redis lost it (a restart): only where nothing else is written.
const RESTORE = "return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') and 1 or 0";

const entryKey = (keyId: string, uuid: string): string => `jm:stream:${keyId}:${uuid.toLowerCase()}`;

export class SessionDirectory {
  readonly #ttlMs: number;

  constructor(private readonly redis: Redis, readonly nodeId: string, sessionTtlMs: number) {
    this.#ttlMs = sessionTtlMs + MARGIN_MS;
  }

  /** True: this node now owns the id. False: the id is open on a live node. Rejects when Redis does not answer. */
  async claim(keyId: string, uuid: string): Promise<boolean> {
    return (await this.redis.eval(CLAIM, 1, entryKey(keyId, uuid), this.nodeId, this.#ttlMs)) === 1;
  }

  /** The node holding this id, or null. */
  ownerOf(keyId: string, uuid: string): Promise<string | null> {
    return this.redis.get(entryKey(keyId, uuid));
  }

  /** Writes these ids (this node's open sessions) again where Redis has none, best effort. */
  restore(ids: Iterable<readonly [string, string]>): void {
    const pipeline = this.redis.pipeline();
    let count = 0;
    for (const [keyId, uuid] of ids) {
      pipeline.eval(RESTORE, 1, entryKey(keyId, uuid), this.nodeId, this.#ttlMs);
      count++;
    }
    if (count > 0) pipeline.exec().catch(() => {
      // Redis away again: the next rejoin writes them.
    });
  }

  release(keyId: string, uuid: string): void {
    this.redis.eval(RELEASE, 1, entryKey(keyId, uuid), this.nodeId).catch(() => {
      // Redis away: the entry expires on its own, TTL after the session's start.
    });
  }
}

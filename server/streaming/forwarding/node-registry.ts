// The live nodes of a deployment, in Redis: each node writes `jm:node:<id>` = its PEER_URL with a
// short expiry every HEARTBEAT_MS, and reads everyone's back on the same tick into a local map. A
// forwarded request looks its owner up in that map (no Redis round trip); a node that stops
// heartbeating (killed, frozen, cut off) leaves every other node's map within NODE_TTL_MS plus a
// tick, and its sessions then answer SESSION_NOT_FOUND at once instead of waiting on a dead peer.
// Redis may restart empty, or be away for a while: the registry notices both (a new `jm:epoch`, a
// tick that failed) and for SETTLE_MS afterwards calls itself unsettled — it keeps the nodes it
// knew, and the session directory is not taken at its word (session-forwarder.ts) — while every
// node writes its entries again (`onRejoin`). Each node then says so: `jm:restored:<id>` = the epoch
// it has written its entries into. The directory is trusted only once every live node has said it
// for the current epoch, not after a time alone: a node the machine starves of CPU may take longer
// than SETTLE_MS to write them, and a session missing meanwhile is not gone. A node this one knew
// that has not written itself into Redis again is waited for too, for REJOIN_GRACE_MS after the
// rejoin: each node's client reconnects on its own schedule, so the other may be back later.
// A NODE_ID names one running node: the entry carries the random id of the process that holds it
// (`<instance> <PEER_URL>`), a node starting with a NODE_ID a live node holds is refused, and a node
// only ever refreshes or deletes its own entry.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { NODES_KEY } from '../../accounts/shared-stores.js';

export const NODE_TTL_MS = 1_000;
export const HEARTBEAT_MS = 250;
/** How long a start waits for an entry of its NODE_ID to expire (a node restarted after dying) before it gives up. */
const TAKEOVER_WAIT_MS = NODE_TTL_MS + 2 * HEARTBEAT_MS;
/** After Redis comes back (or back empty), until every node has written its entries again: a TTL and two ticks. */
export const SETTLE_MS = NODE_TTL_MS + 2 * HEARTBEAT_MS;
/** The longest wait between two reconnection attempts of a node's Redis client (stores/redis-connection.ts). */
const RECONNECT_MAX_MS = 1_000;
/**
 * After this node rejoins, how long a node it knew that has not written itself into Redis again
 * is still taken for live and not yet restored: its own client may reconnect up to
 * RECONNECT_MAX_MS after this one, and then needs a tick, on a machine that may be starved of CPU
 * (4.5 s in all).
 */
export const REJOIN_GRACE_MS = SETTLE_MS + 3 * RECONNECT_MAX_MS;
/**
 * A heartbeat timer this late means this node's event loop stood still (SIGSTOP, a long synchronous
 * task, a paused VM) long enough for its registry entry to expire: other nodes may have taken it for
 * dead meanwhile, answered its sessions' pushes SESSION_NOT_FOUND and opened its compact ids.
 */
export const STALL_MS = NODE_TTL_MS - HEARTBEAT_MS;
const MEMBERS = NODES_KEY;
const nodeKey = (id: string): string => `jm:node:${id}`;
/** `jm:restored:<id>`: the epoch into which that node has written its directory entries again. */
const restoredKey = (id: string): string => `jm:restored:${id}`;
/** A restored marker outlives a few missed heartbeats; a node that stops lets it expire. */
const RESTORED_TTL_MS = 10 * NODE_TTL_MS;

// KEYS[1]: the entry. ARGV: value, this instance's prefix, ttl. Writes it unless another instance
// holds it; returns 0, or the holder's value.
const HEARTBEAT = `local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[2])) ~= ARGV[2] then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 0`;
// The epoch of Redis's contents: its own clock (ms) when the first node found it empty. A restart
// without persistence makes a new one.
const EPOCH = `local e = redis.call('GET', 'jm:epoch')
if not e then
  local t = redis.call('TIME')
  e = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  redis.call('SET', 'jm:epoch', e)
end
return e`;
// Deletes the entry only if this instance holds it.
const LEAVE = `local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Another running node holds this NODE_ID. */
export class DuplicateNodeId extends Error {
  constructor(readonly nodeId: string, readonly holder: string) {
    super(`NODE_ID ${nodeId} is already used by a running node (reachable at ${holder}); every node needs its own NODE_ID`);
  }
}

/** The PEER_URL of an entry's value (`<instance> <PEER_URL>`). */
function peerUrlOfEntry(value: string): string {
  const space = value.indexOf(' ');
  return space === -1 ? value : value.slice(space + 1);
}

export class NodeRegistry {
  /** node id -> peer URL, as of the last successful tick. */
  #live = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #epoch: string | null = null;
  /** When Redis last failed a tick or came back with a new epoch (performance.now()). */
  #unsettledAt = -Infinity;
  /** When this node last saw its event loop run (its heartbeat timer, or a stalls() call); 0 before start. */
  #timerAt = 0;
  #stalls = 0;
  #failing = false;
  /** The epoch this node has written its entries into (onRejoin resolved true); null before, and after a rejoin until written again. */
  #restoredEpoch: string | null = null;
  #restoring = false;
  /** Counts rejoins: a write begun before one does not count as done after it. */
  #rejoins = 0;
  /** Every live node, as of the last tick, had written its entries into the current epoch. */
  #allRestored = false;
  readonly #instance = `${randomBytes(9).toString('base64url')} `;

  constructor(
    private readonly redis: Redis,
    readonly nodeId: string,
    private readonly onError: (error: unknown) => void,
    /** Another running node holds this NODE_ID (seen on a heartbeat: it started while Redis was away). */
    private readonly onDuplicate: (error: DuplicateNodeId) => void = onError,
    /**
     * Redis answers again after a failure, or came back empty (and once at start): write what this
     * node holds again; resolves true once it is all written.
     */
    private readonly onRejoin: () => Promise<boolean> = async () => true,
  ) {}

  /**
   * How many stalls (STALL_MS without the heartbeat timer running) this node has had. Read at any
   * time: a stall is counted here when a request is the first thing the woken event loop runs.
   * Sessions remember the count they were last checked at (session-forwarder.ts).
   */
  stalls(now = performance.now()): number {
    if (this.#timerAt > 0 && now - this.#timerAt >= STALL_MS) this.#stalls++;
    if (this.#timerAt > 0) this.#timerAt = now;
    return this.#stalls;
  }

  /**
   * True for SETTLE_MS after Redis failed a tick or came back empty: what it says is missing may
   * only not be written again yet.
   */
  get unsettled(): boolean {
    return this.#rejoinedWithin(SETTLE_MS);
  }

  /** Redis fails this node's ticks, or answered again (or again empty) less than `ms` ago. */
  #rejoinedWithin(ms: number): boolean {
    return this.#failing || performance.now() - this.#unsettledAt < ms;
  }

  /**
   * Whether an answer from Redis's contents of `epoch`, that old, can be trusted to name every
   * open session: false when this node has not yet seen that epoch (Redis just came back empty) or
   * it is younger than SETTLE_MS (not every node has written its entries again).
   */
  trusts(epoch: string, ageMs: number): boolean {
    return !this.unsettled && epoch !== '' && epoch === this.#epoch && ageMs >= SETTLE_MS && this.#allRestored;
  }

  /** The ids of the live nodes, this one included. */
  liveIds(): string[] {
    return [...this.#live.keys()];
  }

  /**
   * Announces this node at `peerUrl` and waits (bounded by the Redis command timeout) for the first
   * view. Rejects with DuplicateNodeId when a live node holds this NODE_ID; an entry left by a node
   * that died is waited out (it expires within NODE_TTL_MS).
   */
  async start(peerUrl: string): Promise<void> {
    const waitUntil = performance.now() + TAKEOVER_WAIT_MS;
    for (;;) {
      let holder: string | null;
      try {
        holder = await this.#tick(peerUrl);
      } catch (error) {
        this.#failing = true;
        this.#unsettledAt = performance.now();
        this.onError(error);
        break; // Redis away: the heartbeat retries, and notices a duplicate then
      }
      if (holder === null) break;
      if (performance.now() >= waitUntil) throw new DuplicateNodeId(this.nodeId, peerUrlOfEntry(holder));
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS));
    }
    this.#timerAt = performance.now();
    const tick = (): Promise<void> => (this.stalls(), this.#tick(peerUrl)).then((holder) => {
      if (holder !== null) this.onDuplicate(new DuplicateNodeId(this.nodeId, peerUrlOfEntry(holder)));
    }, (error: unknown) => {
      this.#failing = true;
      this.#unsettledAt = performance.now();
      this.onError(error);
    });
    this.#timer = setInterval(tick, HEARTBEAT_MS);
    this.#timer.unref();
  }

  /**
   * The peer URL of a live node, or undefined. While Redis is unreachable the last view is kept: the
   * sessions of nodes that still run stay reachable, and a node that died meanwhile refuses the
   * connection (or misses the forward's connect timeout) instead.
   */
  peerUrlOf(nodeId: string): string | undefined {
    return this.#live.get(nodeId);
  }

  get liveNodes(): number {
    return this.#live.size;
  }

  /** One heartbeat and view; resolves with the value of another instance holding this NODE_ID, else null. */
  async #tick(peerUrl: string): Promise<string | null> {
    const multi = this.redis.multi()
      .eval(HEARTBEAT, 1, nodeKey(this.nodeId), this.#instance + peerUrl, this.#instance, NODE_TTL_MS)
      .sadd(MEMBERS, this.nodeId)
      .smembers(MEMBERS)
      .eval(EPOCH, 0);
    // Said only for the epoch its entries went into (after a restart the new epoch differs), and
    // taken back while they are written again after an outage that kept the epoch.
    if (this.#restoredEpoch !== null) multi.set(restoredKey(this.nodeId), this.#restoredEpoch, 'PX', RESTORED_TTL_MS);
    else multi.del(restoredKey(this.nodeId));
    const replies = await multi.exec();
    const held = replies?.[0]?.[1];
    const ids = (replies?.[2]?.[1] ?? []) as string[];
    const epoch = String(replies?.[3]?.[1] ?? '');
    const rejoined = this.#failing || (this.#epoch !== null && epoch !== this.#epoch);
    this.#failing = false;
    this.#epoch = epoch;
    if (rejoined) {
      // Sessions opened while Redis was away are in no directory yet, whatever the epoch.
      this.#unsettledAt = performance.now();
      this.#rejoins++;
      this.#restoredEpoch = null;
    }
    if (this.#restoredEpoch !== epoch) this.#restore(epoch);
    const values = ids.length === 0 ? [] : await this.redis.mget([...ids.map(nodeKey), ...ids.map(restoredKey)]);
    const live = new Map<string, string>();
    const gone: string[] = [];
    let allRestored = true;
    for (let i = 0; i < ids.length; i++) {
      const url = values[i];
      if (typeof url === 'string') {
        live.set(ids[i]!, peerUrlOfEntry(url));
        if (values[ids.length + i] !== epoch) allRestored = false;
      } else gone.push(ids[i]!);
    }
    // Soon after a rejoin, a node missing from Redis may only not have written itself again yet (its
    // client reconnects on its own schedule): kept, and not restored, so a missing directory entry
    // is not taken for a gone session before that node has had its chance to write it.
    if (this.#rejoinedWithin(REJOIN_GRACE_MS)) {
      for (const [id, url] of this.#live) {
        if (live.has(id)) continue;
        live.set(id, url);
        allRestored = false;
      }
    }
    this.#allRestored = allRestored;
    this.#live = live;
    // A node that stopped is forgotten; if it comes back it adds itself again.
    if (gone.length > 0) await this.redis.srem(MEMBERS, ...gone);
    return typeof held === 'string' ? held : null;
  }

  /** Writes this node's entries into `epoch` once (onRejoin); the next tick then says so. */
  #restore(epoch: string): void {
    if (this.#restoring) return;
    this.#restoring = true;
    const rejoins = this.#rejoins;
    this.onRejoin().then((written) => {
      if (written && this.#rejoins === rejoins) this.#restoredEpoch = epoch;
    }, () => {}).finally(() => {
      this.#restoring = false;
    });
  }

  /** Stops heartbeating and removes this node's own entry at once (a clean shutdown), best effort. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.redis.eval(LEAVE, 1, nodeKey(this.nodeId), this.#instance).catch(() => {});
  }
}

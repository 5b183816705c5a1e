// The live nodes of a deployment, in Redis: each node writes `jm:node:<id>` = its PEER_URL with a
// short expiry every HEARTBEAT_MS, and reads everyone's back on the same tick into a local map. A
// forwarded request looks its owner up in that map (no Redis round trip); a node that stops
// heartbeating (killed, frozen, cut off) leaves every other node's map within NODE_TTL_MS plus a
// tick, and its sessions then answer SESSION_NOT_FOUND at once instead of waiting on a dead peer.
import type { Redis } from 'ioredis';

export const NODE_TTL_MS = 1_000;
export const HEARTBEAT_MS = 250;
const MEMBERS = 'jm:nodes';
const nodeKey = (id: string): string => `jm:node:${id}`;

export class NodeRegistry {
  /** node id -> peer URL, as of the last successful tick. */
  #live = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    readonly nodeId: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Announces this node at `peerUrl` and waits (bounded by the Redis command timeout) for the first view. */
  async start(peerUrl: string): Promise<void> {
    const tick = (): Promise<void> => this.#tick(peerUrl).catch(this.onError);
    await tick();
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

  async #tick(peerUrl: string): Promise<void> {
    const replies = await this.redis.multi()
      .set(nodeKey(this.nodeId), peerUrl, 'PX', NODE_TTL_MS)
      .sadd(MEMBERS, this.nodeId)
      .smembers(MEMBERS)
      .exec();
    const ids = (replies?.[2]?.[1] ?? []) as string[];
    const urls = ids.length === 0 ? [] : await this.redis.mget(ids.map(nodeKey));
    const live = new Map<string, string>();
    const gone: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const url = urls[i];
      if (typeof url === 'string') live.set(ids[i]!, url);
      else gone.push(ids[i]!);
    }
    this.#live = live;
    // A node that stopped is forgotten; if it comes back it adds itself again.
    if (gone.length > 0) await this.redis.srem(MEMBERS, ...gone);
  }

  /** Stops heartbeating and removes this node at once (a clean shutdown), best effort. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.redis.del(nodeKey(this.nodeId)).catch(() => {});
  }
}

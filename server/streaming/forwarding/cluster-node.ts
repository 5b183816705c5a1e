// This node's membership of a cluster (REDIS_URL set): its Redis connection, its entry in the node
// registry, the compact session directory, the client that forwards to other nodes and the route
// that takes their forwards. The server builds one at start only when REDIS_URL is set; without it
// none of this exists and streaming runs exactly as on a single node.
import type { Redis } from 'ioredis';
import type { Config } from '../../config/load-config.js';
import type { HttpContext } from '../../http/http-context.js';
import type { RouteEntry } from '../../http/router.js';
import type { Logger } from '../../observe/logger.js';
import type { StreamSessions } from '../stream-sessions.js';
import { NodeRegistry } from './node-registry.js';
import { PeerClient } from './peer-client.js';
import { peerRouteEntry, PeerRouteStats } from './peer-route.js';
import { connectRedis } from '../../stores/redis-connection.js';
import { SessionDirectory } from './session-directory.js';
import { FORWARD_RESULTS, SessionForwarder } from './session-forwarder.js';
import { metricFamily, metricSample } from '../../observe/metrics.js';

/** A peer that has not accepted the connection by then is taken for gone (the 1 s promise of docs/scaling.md). */
export const PEER_CONNECT_TIMEOUT_MS = 500;
/** Redis errors repeat on every reconnect attempt; the log gets one line per this interval. */
const ERROR_LOG_INTERVAL_MS = 10_000;

export class ClusterNode {
  readonly redis: Redis;
  readonly registry: NodeRegistry;
  readonly forwarder: SessionForwarder;
  readonly #client: PeerClient;
  readonly #stats = new PeerRouteStats();
  readonly #secret: string;
  /** Opened here (not given): closed here. */
  readonly #ownsRedis: boolean;
  #lastErrorLog = -Infinity;
  #lastDuplicateLog = -Infinity;

  /** `redis`: the node's client, when the stores layer has opened one (one connection per node). */
  constructor(config: Config, private readonly logger: Logger, redis?: Redis) {
    this.#secret = config.clusterSecret!;
    this.#ownsRedis = redis === undefined;
    this.redis = redis ?? connectRedis(config.redisUrl!, this.#onError, { connectionName: `jsonmend-${config.nodeId}-cluster` });
    this.registry = new NodeRegistry(this.redis, config.nodeId, this.#onError, (duplicate) => {
      const now = performance.now();
      if (now - this.#lastDuplicateLog < ERROR_LOG_INTERVAL_MS) return;
      this.#lastDuplicateLog = now;
      logger.log('error', `cluster: ${duplicate.message}; forwards meant for one of them may reach the other`);
    }, () => this.forwarder.restore());
    // A push's work is bounded by the task deadline on the owner; the forward waits that long and a second.
    // An owner's answer is at most a finalize's (output, repairs, JSON escaping); far above it is no answer.
    this.#client = new PeerClient(this.#secret, PEER_CONNECT_TIMEOUT_MS, config.taskTimeoutMs + 1_000, 4 * config.maxBodyBytes);
    const directory = new SessionDirectory(this.redis, config.nodeId, config.sessionTtlMs);
    this.forwarder = new SessionForwarder(config.nodeId, config.maxPayloadBytes, this.registry, directory, this.#client, (owner, status) => {
      logger.log('error', 'cluster: a node refused a forwarded request; is CLUSTER_SECRET the same on every node?', { owner, status });
    });
  }

  readonly #onError = (error: unknown): void => {
    const now = performance.now();
    if (now - this.#lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    this.#lastErrorLog = now;
    this.logger.log('warn', 'cluster: Redis unreachable; sessions of other nodes cannot be found meanwhile', { error: (error as Error)?.message ?? String(error) });
  };

  routes(ctx: HttpContext, sessions: StreamSessions): RouteEntry[] {
    return [peerRouteEntry(ctx, sessions, this.#secret, this.#stats, ctx.config.maxPayloadBytes)];
  }

  /** Joins the registry at `peerUrl`. A Redis that is down does not stop the start: the heartbeat retries. */
  async start(peerUrl: string): Promise<void> {
    await this.registry.start(peerUrl);
    this.logger.log('info', 'cluster: joined', { node: this.registry.nodeId, peerUrl });
  }

  metricLines(): string[] {
    const out: string[] = [];
    metricSample(out, 'jsonmend_cluster_nodes', 'gauge', 'Live nodes this node sees in the registry (itself included).', this.registry.liveNodes);
    metricFamily(out, 'jsonmend_stream_forwards_total', 'counter', 'Pushes and finalizes sent to the node owning their session, by result.');
    const { results } = this.forwarder;
    for (let i = 0; i < FORWARD_RESULTS.length; i++) out.push(`jsonmend_stream_forwards_total{result="${FORWARD_RESULTS[i]}"} ${results[i]}`);
    metricFamily(out, 'jsonmend_stream_forwards_received_total', 'counter', 'Forwarded pushes and finalizes this node answered (served) or refused (bad signature).');
    out.push(
      `jsonmend_stream_forwards_received_total{result="served"} ${this.#stats.served}`,
      `jsonmend_stream_forwards_received_total{result="refused"} ${this.#stats.refused}`,
    );
    return out;
  }

  async close(): Promise<void> {
    await this.registry.close();
    this.#client.close();
    if (this.#ownsRedis) this.redis.disconnect();
  }
}

// Two real nodes (dist/server/main.js, via test/helpers/start-server.ts) sharing one real Redis and
// one real PostgreSQL (test/helpers/*-server.ts), as the test/cluster/ files need them. Everything
// is stopped by pid in teardown.
import { startPostgres, type TestPostgres } from '../../support/postgres-server.js';
import { startRedis, type TestRedis } from '../../support/redis-server.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';

interface Teardown { teardown(fn: () => unknown): void }

export const CLUSTER_SECRET = 'test-cluster-secret-0123456789';

export interface Cluster {
  redis: TestRedis | undefined;
  pg: TestPostgres | undefined;
  /** The environment both nodes share (REDIS_URL, DATABASE_URL, CLUSTER_SECRET, ...). */
  env: Record<string, string>;
  nodes: StartedServer[];
  /** Starts one more node with the shared environment (a replacement, or one on a given PORT). */
  add(nodeId: string, env?: Record<string, string>): Promise<StartedServer>;
}

export interface ClusterOptions {
  redis?: boolean;
  postgres?: boolean;
  nodes?: number;
  /** NODE_IDs of the nodes to start (default node-1 … node-<nodes>). */
  nodeIds?: readonly string[];
  env?: Record<string, string>;
}

export async function startCluster(t: Teardown, options: ClusterOptions = {}): Promise<Cluster> {
  const redis = options.redis === false ? undefined : await startRedis(t);
  const pg = options.postgres === false ? undefined : await startPostgres(t);
  const env: Record<string, string> = {
    ...(redis === undefined ? {} : { REDIS_URL: redis.url, CLUSTER_SECRET }),
    ...(pg === undefined ? {} : { DATABASE_URL: pg.url }),
    ...options.env,
  };
  const add = (nodeId: string, more: Record<string, string> = {}): Promise<StartedServer> => startServer(t, { ...env, NODE_ID: nodeId, ...more });
  const ids = options.nodeIds ?? Array.from({ length: options.nodes ?? 2 }, (_, i) => `node-${i + 1}`);
  // Started together: migrations and API_KEYS seeding must be safe with two nodes at once.
  const nodes = await Promise.all(ids.map((id) => add(id)));
  return { redis, pg, env, nodes, add };
}

/** `jsonmend key <args>` (the compiled CLI) with the cluster's DATABASE_URL. */
export function keyCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return runCli(['key', ...args], { env });
}

export async function health(url: string): Promise<any> {
  return (await fetch(`${url}/health`)).json();
}

export async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** The live nodes a node sees in the registry (`jsonmend_cluster_nodes`): it changes once the node has read an entry. */
export async function clusterNodes(url: string): Promise<number> {
  return Number(/^jsonmend_cluster_nodes (\d+)$/m.exec(await metricsOf(url))?.[1]);
}

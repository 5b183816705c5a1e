// Starts nodes of one cluster for a test: real server processes (start-server.ts) sharing a Redis
// (REDIS_URL), CLUSTER_SECRET and the records in one DATA_DIR (SQLite, as PROCESSES nodes share it),
// each with its own NODE_ID. Started one after the other, so only the first creates the database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type StartedServer } from './start-server.js';

interface Teardown { teardown(fn: () => unknown): void }

export const CLUSTER_SECRET = 'test-cluster-secret-0123456789';

export interface ClusterNodes {
  readonly nodes: StartedServer[];
  readonly dataDir: string;
  /** Starts one more node of the same cluster (e.g. to replace one that was killed). */
  add(nodeId: string, env?: Record<string, string>): Promise<StartedServer>;
}

export async function startClusterNodes(t: Teardown, redisUrl: string, nodeIds: readonly string[], env: Record<string, string> = {}): Promise<ClusterNodes> {
  const dataDir = mkdtempSync(join(tmpdir(), 'jsonmend-cluster-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const add = (nodeId: string, more: Record<string, string> = {}): Promise<StartedServer> =>
    startServer(t, { REDIS_URL: redisUrl, CLUSTER_SECRET, DATA_DIR: dataDir, NODE_ID: nodeId, ...env, ...more });
  const nodes: StartedServer[] = [];
  for (const id of nodeIds) nodes.push(await add(id));
  return { nodes, dataDir, add };
}

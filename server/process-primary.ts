// PROCESSES=N: this process becomes a primary that runs no server itself but N node processes on
// this machine, each a full jsonmend node (its own NODE_ID `<NODE_ID>-<i>`, HTTP thread, workers and
// peer port) listening on the same public port with SO_REUSEPORT, so the kernel spreads connections
// across them. It prints one "listening on" line once every node listens, restarts a node that dies,
// and on SIGTERM/SIGINT drains them all (each runs its own bounded drain) and exits when they have.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from './config/load-config.js';
import { Logger } from './observe/logger.js';
import { VERSION } from './config/version.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
/** A node that lived at least this long is restarted at once; one that keeps dying backs off to 5 s. */
const STABLE_MS = 5_000;
const MAX_BACKOFF_MS = 5_000;

/** The message a node sends its primary once it listens (instead of printing "listening on"). */
export interface ListeningMessage {
  listening: string;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

class Node {
  child: ChildProcess | null = null;
  startedAt = 0;
  backoffMs = 100;
  listening = false;

  constructor(readonly index: number, readonly nodeId: string, readonly env: NodeJS.ProcessEnv) {}
}

/** Runs the primary until its nodes have stopped; never returns. */
export async function runPrimary(config: Config, env: NodeJS.ProcessEnv, fatal: (message: string) => never): Promise<never> {
  const logger = new Logger(config.logLevel);
  const suffixLength = String(config.processes - 1).length + 1;
  if (config.nodeId.length + suffixLength > 32) {
    fatal(`NODE_ID must be at most ${32 - suffixLength} characters with PROCESSES=${config.processes} (each node is named <NODE_ID>-<i>)`);
  }
  // Every node must bind the same port: with PORT=0 the primary picks one for all of them.
  const port = config.port === 0 ? await freePort(config.host) : config.port;
  const peer = config.peerUrl === undefined ? undefined : new URL(config.peerUrl);
  const nodes = Array.from({ length: config.processes }, (_, i) => {
    const nodeEnv: NodeJS.ProcessEnv = { ...env, PORT: String(port), NODE_ID: `${config.nodeId}-${i}`, JSONMEND_PROCESS_INDEX: String(i) };
    // Node i takes forwards on PEER_URL's port + i (unset: a free loopback port of its own).
    if (peer !== undefined) nodeEnv['PEER_URL'] = `${peer.protocol}//${peer.hostname.includes(':') ? `[${peer.hostname}]` : peer.hostname}:${Number(peer.port || 80) + i}`;
    return new Node(i, `${config.nodeId}-${i}`, nodeEnv);
  });
  let stopping = false;
  let announced = false;
  let url = '';

  const announce = (): void => {
    if (announced || !nodes.every((n) => n.listening)) return;
    announced = true;
    process.stdout.write(JSON.stringify({
      time: Date.now(), level: 'info', msg: `listening on ${url}`, version: VERSION, processes: config.processes,
      nodes: nodes.map((n) => n.nodeId).join(','), workers: config.workers, contract: config.contract,
    }) + '\n');
  };

  const launch = (node: Node): void => {
    const child = fork(MAIN, [], { env: node.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    node.child = child;
    node.startedAt = performance.now();
    logger.log('info', 'node started', { node: node.nodeId, pid: child.pid });
    child.on('message', (message: ListeningMessage) => {
      if (typeof message?.listening !== 'string') return;
      url = message.listening;
      node.listening = true;
      announce();
    });
    child.once('exit', (code, signal) => {
      node.child = null;
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (nodes.every((n) => n.child === null)) finish();
        return;
      }
      if (!announced) {
        // A node that cannot start (a port taken, a store refusing) will not start on a retry either.
        stopAll();
        fatal(`node ${node.nodeId} exited (${signal ?? code}) before listening; stopping`);
      }
      const lived = performance.now() - node.startedAt;
      node.backoffMs = lived >= STABLE_MS ? 100 : Math.min(node.backoffMs * 2, MAX_BACKOFF_MS);
      logger.log('error', 'node exited; restarting it', { node: node.nodeId, code, signal, restartInMs: node.backoffMs });
      logger.flush();
      setTimeout(() => {
        if (!stopping) launch(node);
      }, node.backoffMs);
    });
  };

  let exitCode = 0;
  const finish = (): void => {
    logger.log(exitCode === 0 ? 'info' : 'warn', exitCode === 0 ? 'stopped' : 'stopped; a node did not drain cleanly');
    logger.flush();
    process.exit(exitCode);
  };
  const stopAll = (): void => {
    for (const node of nodes) node.child?.kill('SIGTERM');
  };
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.log('info', 'shutting down', { signal, processes: config.processes });
    if (nodes.every((n) => n.child === null)) finish();
    stopAll();
    // Each node bounds its own drain (the task deadline plus a margin); this bounds a node that hangs.
    setTimeout(() => {
      for (const node of nodes) node.child?.kill('SIGKILL');
      exitCode = 1;
    }, config.taskTimeoutMs + 15_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (const node of nodes) launch(node);
  return new Promise<never>(() => {});
}

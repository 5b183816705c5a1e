// Reads and validates every environment variable once, at start (docs/operations.md lists them).
// A bad value stops the start with a message naming each offending variable.
import { randomBytes } from 'node:crypto';
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { MAX_SCHEMA_TEXT } from '../../engine/schema/limits.js';
import {
  ConfigProblem, readApiKeys, readPeerUrl, readChoice, readDatabaseUrl, readUpstreamUrl, readFlag, readHost, readInteger, readNodeId,
  readProcesses, readProxyList, readRedisUrl, readSecret, readString, type Env, type SeedKey,
} from './env-parsers.js';

export type ContractSetting = 'auto' | 'envelope' | 'compact';
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKeys: readonly SeedKey[];
  readonly workers: number;
  readonly queueMax: number;
  readonly sessionTtlMs: number;
  readonly maxPayloadBytes: number;
  /** Largest request body read: six times the input (JSON escaping) plus room for a schema. */
  readonly maxBodyBytes: number;
  readonly demoLimitPerHour: number;
  readonly contract: ContractSetting;
  readonly uwsAllowFallback: boolean;
  readonly inlineMaxBytes: number;
  readonly taskTimeoutMs: number;
  readonly maxSessions: number;
  /** UTF-8 bytes all streaming sessions may buffer together. */
  readonly streamBufferBudgetBytes: number;
  /** Pushes per second one streaming session may sustain (server/streaming/push-rate.ts). */
  readonly streamPushRate: number;
  /** Pushes one streaming session may send at once after a pause. */
  readonly streamPushBurst: number;
  readonly trustProxy: readonly string[];
  readonly logLevel: LogLevel;
  /** Shared live state (limits, sessions directory, node registry); unset = this process alone. */
  readonly redisUrl: string | undefined;
  /** Records (accounts, keys, usage, metadata) in PostgreSQL; unset = SQLite in DATA_DIR. */
  readonly databaseUrl: string | undefined;
  /** This node's unique name; generated at start when NODE_ID is unset. */
  readonly nodeId: string;
  /** Where other nodes reach this one; undefined = http://127.0.0.1:<the port listened on>. */
  readonly peerUrl: string | undefined;
  /** Authenticates forwarded requests and signs console cookies/CSRF tokens; required with REDIS_URL. */
  readonly clusterSecret: string | undefined;
  /** Nodes on this machine sharing the public port (PROCESSES; `auto` = cores). */
  readonly processes: number;
  /** Set by the PROCESSES primary in each node it starts (JSONMEND_PROCESS_INDEX): shared listen, own peer port. */
  readonly processIndex: number | undefined;
  /** Bearer token for GET /metrics and /health's details; null leaves /metrics open. */
  readonly metricsToken: string | null;
  /** The gateway's OpenAI-compatible upstream (ends in /v1); undefined: /v1/chat/completions answers 503. */
  readonly upstreamUrl: string | undefined;
  /** Sent upstream as `Authorization: Bearer …`; null sends none (a local vLLM or Ollama). */
  readonly upstreamApiKey: string | null;
  /** How long the gateway waits for the upstream's headers, and then for each of its body's chunks. */
  readonly upstreamTimeoutMs: number;
  /** A caller may send its own upstream key in X-Upstream-Authorization (off: the operator's key only). */
  readonly upstreamKeyFromCaller: boolean;
  /** JSONMEND_TEST_HOOKS=1 arms the worker's crash/sleep markers (server/config/worker-test-hooks.ts). */
  readonly testHooks: boolean;
}

// Defaults chosen by measurement; docs/operations.md has the figures behind them.
export const DEFAULTS = Object.freeze({
  PORT: 8080,
  HOST: '0.0.0.0',
  DATA_DIR: './data',
  QUEUE_MAX: 32,
  SESSION_TTL_MS: 60_000,
  MAX_PAYLOAD_BYTES: 5_242_880,
  DEMO_LIMIT_PER_HOUR: 10,
  INLINE_MAX_BYTES: 8_192,
  TASK_TIMEOUT_MS: 5_000,
  MAX_SESSIONS: 1_000,
  // A model can think for minutes before its first token; a stream's gaps are far shorter.
  UPSTREAM_TIMEOUT_MS: 600_000,
  // A model streams tens of tokens a second; a client pushing each token keeps far below both.
  STREAM_PUSH_RATE: 200,
  STREAM_PUSH_BURST: 400,
});

const MiB = 1024 * 1024;

/**
 * STREAM_BUFFER_BUDGET_BYTES by default: a quarter of the memory this process may use (RAM, or the
 * cgroup limit when lower), at most half of V8's heap limit (a worker holding many sessions must
 * not reach its own), at least 16 MiB. A buffered byte costs about 1.15 bytes resident
 * (docs/streaming.md), so the budget leaves room for everything else.
 */
export function defaultStreamBufferBudget(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const memory = constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
  const budget = Math.min(Math.floor(memory / 4), Math.floor(getHeapStatistics().heap_size_limit / 2));
  return Math.max(16 * MiB, budget);
}

/** Room in a body for the largest schema accepted, pretty-printed or escaped. */
export const SCHEMA_ALLOWANCE_BYTES = 4 * MAX_SCHEMA_TEXT;

/**
 * MAX_PAYLOAD_BYTES bounds the decoded input; its body is larger. JSON escaping takes a character
 * to at most six bytes (`\u00e9` for the two bytes of é, `\u6f22` for the three of 漢, `\u0001` for
 * one), and the body may carry a schema beside it. Larger Content-Lengths are refused unread.
 */
export function bodyLimitFor(maxPayloadBytes: number): number {
  return 6 * maxPayloadBytes + SCHEMA_ALLOWANCE_BYTES;
}

/** `n-` and 8 random hex digits: unique enough among a deployment's nodes, short in session ids. */
function generatedNodeId(): string {
  return `n-${randomBytes(4).toString('hex')}`;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  // Each read runs even after an earlier failure, so one start reports every bad variable.
  const read = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      problems.push(error.message);
      return fallback;
    }
  };
  const cores = Math.max(1, availableParallelism());
  const budget = defaultStreamBufferBudget();
  const maxPayloadBytes = read(() => readInteger(env, 'MAX_PAYLOAD_BYTES', DEFAULTS.MAX_PAYLOAD_BYTES, 1, 1024 * MiB), DEFAULTS.MAX_PAYLOAD_BYTES);
  const config: Config = {
    port: read(() => readInteger(env, 'PORT', DEFAULTS.PORT, 0, 65_535), DEFAULTS.PORT),
    host: read(() => readHost(env, 'HOST', DEFAULTS.HOST), DEFAULTS.HOST),
    dataDir: readString(env, 'DATA_DIR', DEFAULTS.DATA_DIR),
    apiKeys: Object.freeze(read(() => readApiKeys(env, 'API_KEYS'), [])),
    workers: read(() => readInteger(env, 'WORKERS', cores, 1, 256), cores),
    queueMax: read(() => readInteger(env, 'QUEUE_MAX', DEFAULTS.QUEUE_MAX, 0, 1_000_000), DEFAULTS.QUEUE_MAX),
    sessionTtlMs: read(() => readInteger(env, 'SESSION_TTL_MS', DEFAULTS.SESSION_TTL_MS, 100, 86_400_000), DEFAULTS.SESSION_TTL_MS),
    maxPayloadBytes,
    maxBodyBytes: bodyLimitFor(maxPayloadBytes),
    demoLimitPerHour: read(() => readInteger(env, 'DEMO_LIMIT_PER_HOUR', DEFAULTS.DEMO_LIMIT_PER_HOUR, 0, 1_000_000), DEFAULTS.DEMO_LIMIT_PER_HOUR),
    contract: read(() => readChoice<ContractSetting>(env, 'CONTRACT', 'auto', ['auto', 'envelope', 'compact']), 'auto'),
    uwsAllowFallback: read(() => readFlag(env, 'UWS_ALLOW_FALLBACK', false), false),
    inlineMaxBytes: read(() => readInteger(env, 'INLINE_MAX_BYTES', DEFAULTS.INLINE_MAX_BYTES, 0, 1024 * MiB), DEFAULTS.INLINE_MAX_BYTES),
    taskTimeoutMs: read(() => readInteger(env, 'TASK_TIMEOUT_MS', DEFAULTS.TASK_TIMEOUT_MS, 10, 3_600_000), DEFAULTS.TASK_TIMEOUT_MS),
    maxSessions: read(() => readInteger(env, 'MAX_SESSIONS', DEFAULTS.MAX_SESSIONS, 1, 10_000_000), DEFAULTS.MAX_SESSIONS),
    streamBufferBudgetBytes: read(() => readInteger(env, 'STREAM_BUFFER_BUDGET_BYTES', budget, 1024, 2 ** 50), budget),
    streamPushRate: read(() => readInteger(env, 'STREAM_PUSH_RATE', DEFAULTS.STREAM_PUSH_RATE, 1, 1_000_000), DEFAULTS.STREAM_PUSH_RATE),
    streamPushBurst: read(() => readInteger(env, 'STREAM_PUSH_BURST', DEFAULTS.STREAM_PUSH_BURST, 1, 1_000_000), DEFAULTS.STREAM_PUSH_BURST),
    trustProxy: Object.freeze(read(() => readProxyList(env, 'TRUST_PROXY'), [])),
    logLevel: read(() => readChoice<LogLevel>(env, 'LOG_LEVEL', 'info', LOG_LEVELS), 'info'),
    metricsToken: read(() => readSecret(env, 'METRICS_TOKEN', 16, 256), null),
    testHooks: read(() => readFlag(env, 'JSONMEND_TEST_HOOKS', false), false),
    upstreamUrl: read(() => readUpstreamUrl(env, 'UPSTREAM_URL'), undefined),
    upstreamApiKey: read(() => readSecret(env, 'UPSTREAM_API_KEY', 1, 4096), null),
    upstreamTimeoutMs: read(() => readInteger(env, 'UPSTREAM_TIMEOUT_MS', DEFAULTS.UPSTREAM_TIMEOUT_MS, 100, 3_600_000), DEFAULTS.UPSTREAM_TIMEOUT_MS),
    upstreamKeyFromCaller: read(() => readFlag(env, 'UPSTREAM_KEY_FROM_CALLER', false), false),
    redisUrl: read(() => readRedisUrl(env, 'REDIS_URL'), undefined),
    databaseUrl: read(() => readDatabaseUrl(env, 'DATABASE_URL'), undefined),
    nodeId: read(() => readNodeId(env, 'NODE_ID'), undefined) ?? generatedNodeId(),
    peerUrl: read(() => readPeerUrl(env, 'PEER_URL'), undefined),
    clusterSecret: readString(env, 'CLUSTER_SECRET', '') || undefined,
    processes: read(() => readProcesses(env, 'PROCESSES', cores), 1),
    processIndex: env['JSONMEND_PROCESS_INDEX'] === undefined ? undefined : read(() => readInteger(env, 'JSONMEND_PROCESS_INDEX', 0, 0, 255), 0),
  };
  if (config.redisUrl !== undefined && (config.clusterSecret === undefined || config.clusterSecret.length < 16)) {
    problems.push('CLUSTER_SECRET must be set, at least 16 characters, when REDIS_URL is set (it authenticates forwarded requests and console cookies between nodes)');
  }
  if (config.processes > 1 && config.redisUrl === undefined) {
    problems.push(`PROCESSES=${config.processes} needs REDIS_URL: the processes share rate limits, sessions and keys through Redis`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/**
 * The time one engine call (a repair, a push, a finalize) may take before the engine stops it with
 * WORK_DEADLINE_EXCEEDED: half of TASK_TIMEOUT_MS, so the call fails on its own well before the
 * pool's or the streaming worker's watchdog would replace a worker shared by other callers.
 */
export function engineBudgetMs(config: Pick<Config, 'taskTimeoutMs'>): number {
  return Math.max(5, Math.floor(config.taskTimeoutMs / 2));
}

// Reads and validates every environment variable once, at start (docs/operations.md lists them).
// A bad value stops the start with a message naming each offending variable.
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import {
  ConfigProblem, readApiKeys, readChoice, readFlag, readHost, readInteger, readProxyList, readString,
  type Env, type SeedKey,
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
  /** Largest request body read: the input plus room for JSON escaping and a schema. */
  readonly maxBodyBytes: number;
  readonly demoLimitPerHour: number;
  readonly contract: ContractSetting;
  readonly uwsAllowFallback: boolean;
  readonly inlineMaxBytes: number;
  readonly taskTimeoutMs: number;
  readonly maxSessions: number;
  /** UTF-8 bytes all streaming sessions may buffer together. */
  readonly streamBufferBudgetBytes: number;
  readonly trustProxy: readonly string[];
  readonly logLevel: LogLevel;
  /** JSONMEND_TEST_HOOKS=1 arms the worker's crash/sleep markers (server/pool/test-hooks.ts). */
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

/** JSON escaping and a schema make a body larger than its input; allow an eighth more, at least 64 KiB. */
export function bodyLimitFor(maxPayloadBytes: number): number {
  return maxPayloadBytes + Math.max(64 * 1024, Math.floor(maxPayloadBytes / 8));
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
    trustProxy: Object.freeze(read(() => readProxyList(env, 'TRUST_PROXY'), [])),
    logLevel: read(() => readChoice<LogLevel>(env, 'LOG_LEVEL', 'info', LOG_LEVELS), 'info'),
    testHooks: read(() => readFlag(env, 'JSONMEND_TEST_HOOKS', false), false),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

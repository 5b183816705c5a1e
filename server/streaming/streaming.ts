// The streaming layer assembled: its worker threads, the session table, one timer (expiry sweep and
// the workers' deadline watchdog), its routes and its metrics. The server builds one at start-up.
import { engineBudgetMs, type Config } from '../config/load-config.js';
import type { HttpContext } from '../http/http-context.js';
import type { RouteEntry } from '../http/router.js';
import type { Logger } from '../observe/logger.js';
import { metricFamily, metricSample } from '../observe/metrics.js';
import { CLOSE } from './stream-protocol.js';
import { streamRouteEntries } from './stream-routes.js';
import { StreamSessions, type StreamRemote } from './stream-sessions.js';
import { StreamWorkers } from './stream-workers.js';
import { END_REASONS, SessionTable, type EndReason, type StreamSession } from './session-table.js';

/** Often enough to free an expired session within a quarter of its TTL, at most once a second. */
export function tickMs(config: Config): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(config.sessionTtlMs, config.taskTimeoutMs) / 4)));
}

export class Streaming {
  readonly workers: StreamWorkers;
  readonly table: SessionTable;
  readonly sessions: StreamSessions;
  readonly #timer: NodeJS.Timeout;

  readonly #remote: StreamRemote | null;

  /** `remote`: with REDIS_URL, sessions held by other nodes are reached through it. */
  constructor(config: Config, logger: Logger, remote: StreamRemote | null = null) {
    this.#remote = remote;
    this.workers = new StreamWorkers({
      threads: config.workers,
      callTimeoutMs: config.taskTimeoutMs,
      workerData: { testHooks: config.testHooks, engineBudgetMs: engineBudgetMs(config) },
      onWorkerLost: (slot, generation, closing) => {
        // At shutdown the workers are stopped on purpose: not an error for whoever watches the log.
        if (closing) logger.log('info', 'streaming worker stopped at shutdown', { slot, generation });
        else logger.log('error', 'streaming worker stopped; its sessions are gone', { slot, generation });
        this.table.endAllOn(slot, generation);
      },
      onError: (error) => logger.log('error', 'streaming worker error', { error: (error as Error)?.name ?? 'unknown' }),
    });
    this.table = new SessionTable(config.sessionTtlMs, config.maxSessions, config.streamBufferBudgetBytes, this.#onEnd);
    this.sessions = new StreamSessions(this.table, this.workers, config.maxPayloadBytes, config.taskTimeoutMs, remote, config.workers,
      { sessionPerSecond: config.streamPushRate, sessionBurst: config.streamPushBurst });
    this.workers.startAll();
    this.#timer = setInterval(this.#tick, tickMs(config));
    this.#timer.unref();
  }

  readonly #tick = (): void => {
    const now = performance.now();
    this.table.sweep(now);
    this.workers.checkDeadlines(now);
  };

  readonly #onEnd = (session: StreamSession, reason: EndReason): void => {
    this.workers.release(session.slot, session.generation, session.bufferedBytes);
    this.#remote?.ended(session);
    // A finalized stream is dropped by the worker itself; a lost one went with its worker.
    if (reason !== 'finalized' && reason !== 'worker_lost') {
      this.workers.post(session.slot, session.generation, { op: CLOSE, handle: session.handle });
    }
  };

  routes(ctx: HttpContext): RouteEntry[] {
    return streamRouteEntries(ctx, this.sessions);
  }

  /** Prometheus lines; every label comes from a fixed list. */
  metricLines(): string[] {
    const t = this.table;
    const out: string[] = [];
    metricSample(out, 'jsonmend_stream_sessions', 'gauge', 'Streaming sessions open now.', t.size);
    metricSample(out, 'jsonmend_stream_sessions_started_total', 'counter', 'Streaming sessions started.', t.started);
    metricSample(out, 'jsonmend_stream_buffered_bytes', 'gauge', 'Bytes all open streaming sessions hold together: their buffers (UTF-8) and, estimated, the values and previews parsed from them.', t.bufferedTotal);
    metricSample(out, 'jsonmend_stream_buffer_budget_bytes', 'gauge', 'What they may buffer together (STREAM_BUFFER_BUDGET_BYTES).', t.bufferBudget);
    metricFamily(out, 'jsonmend_stream_sessions_ended_total', 'counter', 'Streaming sessions ended, by reason.');
    for (let i = 0; i < END_REASONS.length; i++) out.push(`jsonmend_stream_sessions_ended_total{reason="${END_REASONS[i]}"} ${t.ended[i]}`);
    metricSample(out, 'jsonmend_stream_workers', 'gauge', 'Streaming worker threads running.', this.workers.alive);
    metricSample(out, 'jsonmend_stream_worker_restarts_total', 'counter', 'Streaming workers replaced after dying.', this.workers.restarts);
    metricSample(out, 'jsonmend_stream_calls_waited_total', 'counter', "Streaming calls that waited for their account's earlier work to be answered.", this.sessions.work.waited);
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.workers.close();
  }
}

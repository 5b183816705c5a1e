// Prometheus metrics kept in plain counters and rendered on scrape. Every label set is bounded:
// routes come from the route table, outcomes from the error registry, repair types from the
// repair vocabulary (anything else counts as "other").
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { ERROR_CODES } from '../contracts/error-codes.js';
import { REPAIR_KINDS } from '../../engine/repair-kinds.js';
import type { RequestObserver, RequestRecord } from './request-record.js';

/** Seconds. Dense below 10 ms, where the latency targets are. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const OUTCOMES = ['ok', 'aborted', ...Object.keys(ERROR_CODES)];
const REPAIR_TYPES = [...Object.keys(REPAIR_KINDS), 'other'];

export interface PoolGauges {
  threads: number;
  workers: number;
  queueDepth: number;
  activeTasks: number;
  inflightRequests: number;
}

class RouteStats {
  readonly byOutcome = new Float64Array(OUTCOMES.length);
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);
  count = 0;
  sumSeconds = 0;
}

/** The HELP and TYPE lines that open a metric family (Prometheus text format); its samples follow. */
export function metricFamily(out: string[], name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

/** A family with one unlabelled sample. */
export function metricSample(out: string[], name: string, type: 'counter' | 'gauge', help: string, value: number): void {
  metricFamily(out, name, type, help);
  out.push(`${name} ${value}`);
}

export class Metrics implements RequestObserver {
  readonly #routes = new Map<string, RouteStats>();
  readonly #outcomeIndex = new Map(OUTCOMES.map((o, i) => [o, i]));
  readonly #internalIndex = OUTCOMES.indexOf('INTERNAL_ERROR');
  readonly #repairIndex = new Map(REPAIR_TYPES.map((t, i) => [t, i]));
  readonly #repairs = new Float64Array(REPAIR_TYPES.length);
  readonly #execution = { inline: 0, pool: 0, none: 0, stream: 0 };
  readonly #sources: Array<() => readonly string[]> = [];
  readonly #loopDelay: IntervalHistogram;

  constructor(private readonly gauges: () => PoolGauges) {
    this.#loopDelay = monitorEventLoopDelay({ resolution: 10 });
    this.#loopDelay.enable();
  }

  /** Routes are registered up front so the label set is fixed before the first request. */
  addRoute(name: string): void {
    if (!this.#routes.has(name)) this.#routes.set(name, new RouteStats());
  }

  /** More series rendered on each scrape (the streaming layer's); their labels must be bounded too. */
  addSource(lines: () => readonly string[]): void {
    this.#sources.push(lines);
  }

  onRequest(r: RequestRecord): void {
    const stats = this.#routes.get(r.route);
    if (stats === undefined) return;
    stats.byOutcome[this.#outcomeIndex.get(r.outcome) ?? this.#internalIndex]!++;
    const seconds = r.latencyMs / 1000;
    stats.count++;
    stats.sumSeconds += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        stats.buckets[i]!++;
        break;
      }
    }
    this.#execution[r.execution]++;
    for (const type in r.repairCounts) {
      this.#repairs[this.#repairIndex.get(type) ?? REPAIR_TYPES.length - 1]! += r.repairCounts[type]!;
    }
  }

  render(): string {
    const out: string[] = [];
    metricFamily(out, 'jsonmend_requests_total', 'counter', 'Requests answered, by route and outcome (ok, aborted or an error code).');
    for (const [route, stats] of this.#routes) {
      for (let i = 0; i < OUTCOMES.length; i++) {
        if (stats.byOutcome[i]! > 0) out.push(`jsonmend_requests_total{route="${route}",outcome="${OUTCOMES[i]}"} ${stats.byOutcome[i]}`);
      }
    }
    metricFamily(out, 'jsonmend_request_duration_seconds', 'histogram', 'Time from request arrival to the answer being written.');
    for (const [route, stats] of this.#routes) {
      let cumulative = 0;
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
        cumulative += stats.buckets[i]!;
        out.push(`jsonmend_request_duration_seconds_bucket{route="${route}",le="${LATENCY_BUCKETS[i]}"} ${cumulative}`);
      }
      out.push(`jsonmend_request_duration_seconds_bucket{route="${route}",le="+Inf"} ${stats.count}`);
      out.push(`jsonmend_request_duration_seconds_sum{route="${route}"} ${stats.sumSeconds}`);
      out.push(`jsonmend_request_duration_seconds_count{route="${route}"} ${stats.count}`);
    }
    metricFamily(out, 'jsonmend_repairs_total', 'counter', 'Repairs applied, by repair type.');
    for (let i = 0; i < REPAIR_TYPES.length; i++) {
      if (this.#repairs[i]! > 0) out.push(`jsonmend_repairs_total{type="${REPAIR_TYPES[i]}"} ${this.#repairs[i]}`);
    }
    metricFamily(out, 'jsonmend_tasks_total', 'counter', 'Batch repairs by where they ran (inline on the uWS thread or in the pool).');
    out.push(`jsonmend_tasks_total{execution="inline"} ${this.#execution.inline}`);
    out.push(`jsonmend_tasks_total{execution="pool"} ${this.#execution.pool}`);
    const g = this.gauges();
    const gauge = (name: string, help: string, value: number): void => metricSample(out, name, 'gauge', help, value);
    gauge('jsonmend_pool_workers', 'Worker threads configured (WORKERS).', g.workers);
    gauge('jsonmend_pool_threads', 'Worker threads alive now.', g.threads);
    gauge('jsonmend_pool_queue_depth', 'Tasks waiting for a free worker.', g.queueDepth);
    gauge('jsonmend_pool_active_tasks', 'Tasks running in workers.', g.activeTasks);
    gauge('jsonmend_pool_utilization', 'Share of workers busy now (0..1).', g.workers === 0 ? 0 : g.activeTasks / g.workers);
    gauge('jsonmend_inflight_requests', 'Requests received and not yet answered.', g.inflightRequests);
    gauge('jsonmend_event_loop_delay_p99_seconds', 'p99 event-loop delay of the uWS thread since the last scrape.', this.#loopDelay.percentile(99) / 1e9);
    this.#loopDelay.reset();
    const memory = process.memoryUsage();
    gauge('process_resident_memory_bytes', 'Resident set size.', memory.rss);
    gauge('nodejs_heap_used_bytes', 'V8 heap in use (main thread).', memory.heapUsed);
    for (const source of this.#sources) out.push(...source());
    return out.join('\n') + '\n';
  }
}

// The server's request observer for the accounts layer: counts monthly usage and writes one
// metadata row per request. It sees only the RequestRecord (ids, codes, counts, sizes, times),
// never the body, so neither the usage counters nor the metadata log can receive input or output.
import type { RequestObserver, RequestRecord } from '../observe/request-record.js';
import { API_ROUTES, type MetadataEntry, type MetadataLog } from './metadata/metadata-log.js';
import type { QuotaTracker } from './quota.js';

export interface RequestRecorderOptions {
  quota: QuotaTracker;
  metadata: MetadataLog;
  /** Routes whose served requests count as one repair each: a batch repair, a streaming session's start, a gateway call. */
  countedRoutes?: readonly string[];
  /**
   * Routes that get a metadata row: the API endpoints. Probes, scrapes, web pages and requests for
   * unknown paths carry no customer request and would only bury the rows that matter.
   */
  loggedRoutes?: readonly string[];
}

/**
 * Outcomes of requests that never reached the engine (bad request, too large) or failed on our
 * side (crash, timeout, full queue): they cost the customer nothing.
 */
const NOT_CHARGED = new Set([
  'INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'INTERNAL_ERROR', 'UNKNOWN_REPAIR_ERROR', 'SERVICE_UNAVAILABLE', 'aborted',
  // The gateway's upstream gave no answer, or an error: nothing was healed.
  'UPSTREAM_UNREACHABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_ERROR', 'UPSTREAM_NOT_CONFIGURED',
]);

export class RequestRecorder implements RequestObserver {
  readonly #quota: QuotaTracker;
  readonly #metadata: MetadataLog;
  readonly #counted: ReadonlySet<string>;
  readonly #logged: ReadonlySet<string>;
  // MetadataLog.record() copies the fields, so one entry serves every request.
  readonly #entry: MetadataEntry = {
    time: 0, keyId: null, endpoint: '', contract: 'envelope', success: false, errorCode: null,
    confidence: null, repairCounts: null, inputBytes: 0, latencyMs: 0,
  };

  constructor(options: RequestRecorderOptions) {
    this.#quota = options.quota;
    this.#metadata = options.metadata;
    this.#counted = new Set(options.countedRoutes ?? ['repair', 'stream_start', 'chat_completions']);
    this.#logged = new Set(options.loggedRoutes ?? API_ROUTES);
  }

  onRequest(r: RequestRecord): void {
    if (!this.#logged.has(r.route)) return;
    // Unauthenticated, rate-limited and refused-early requests have execution 'none'.
    if (r.accountId !== null && r.execution !== 'none' && this.#counted.has(r.route) && !NOT_CHARGED.has(r.outcome)) {
      // The quota is the account's; a console key is also counted alone for the console's breakdown.
      this.#quota.record(r.accountId);
      if (r.keyId !== null && r.keyId !== r.accountId) this.#quota.record(r.keyId);
    }
    const e = this.#entry;
    const ok = r.outcome === 'ok';
    e.time = r.time;
    e.keyId = r.keyId;
    e.endpoint = r.route;
    e.contract = r.contract ?? 'envelope'; // GET endpoints have no contract; the column is not null
    e.success = ok;
    e.errorCode = ok ? null : r.outcome;
    e.confidence = r.confidence;
    e.repairCounts = r.repairCounts; // a fresh object per answer, never mutated afterwards
    e.inputBytes = r.inputBytes;
    e.latencyMs = r.latencyMs;
    this.#metadata.record(e);
  }
}

// JSON-lines logs on stdout. Lines are gathered and written once per event-loop turn, so a busy
// server makes one write per batch, not one per request. Request lines never carry input, output
// or keys (see RequestRecord).
import type { LogLevel } from '../config/load-config.js';
import type { RequestObserver, RequestRecord } from './request-record.js';

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };
const FLUSH_AT_BYTES = 64 * 1024;

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export class Logger implements RequestObserver {
  readonly #rank: number;
  readonly #out: NodeJS.WritableStream;
  #buffer = '';
  #scheduled = false;
  // The last key id and its JSON: a busy server logs the same few keys over and over.
  #keyId: string | null = null;
  #keyJson = 'null';
  readonly #flush = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(level: LogLevel, out: NodeJS.WritableStream = process.stdout) {
    this.#rank = RANK[level];
    this.#out = out;
  }

  enabled(level: Exclude<LogLevel, 'silent'>): boolean {
    return RANK[level] <= this.#rank;
  }

  log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    this.#append(JSON.stringify({ time: Date.now(), level, msg, ...fields }));
  }

  onRequest(r: RequestRecord): void {
    if (this.#rank < RANK.info) return;
    // Hand-built: every value is a number, a route name, a code or a request id of safe characters.
    this.#append(
      `{"time":${r.time},"level":"info","msg":"request","requestId":"${r.requestId}","route":"${r.route}","status":${r.status},` +
        `"outcome":"${r.outcome}","contract":${r.contract === null ? 'null' : `"${r.contract}"`},` +
        `"latencyMs":${Math.round(r.latencyMs * 1000) / 1000},"inputBytes":${r.inputBytes},"execution":"${r.execution}",` +
        `"keyId":${this.#keyIdJson(r.keyId)}}`,
    );
  }

  #keyIdJson(keyId: string | null): string {
    if (keyId !== this.#keyId) {
      this.#keyId = keyId;
      this.#keyJson = keyId === null ? 'null' : JSON.stringify(keyId);
    }
    return this.#keyJson;
  }

  #append(line: string): void {
    this.#buffer += line + '\n';
    if (this.#buffer.length >= FLUSH_AT_BYTES) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** stdout writes to files and pipes are synchronous on Linux, so a flush before exit is kept. */
  flush(): void {
    if (this.#buffer === '') return;
    const text = this.#buffer;
    this.#buffer = '';
    this.#out.write(text);
  }
}

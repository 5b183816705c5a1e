// The soak's client mix: inline and pool repairs, schemas (some unique, to churn the schema cache),
// the demo, refusals, clients that leave mid-request, and streaming sessions that are finalized or
// simply abandoned (left for the server's TTL to free). Each client loops until told to stop.
import { randomUUID } from 'node:crypto';
import { MALFORMED_1KB, REPLY_SCHEMA, malformedDocument } from '../suite/bodies.js';
import type { Random } from '../../support/random.js';

export type Kind =
  | 'inline' | 'pool' | 'schema' | 'unique_schema' | 'demo' | 'refused' | 'left_mid_request'
  | 'stream_finalized' | 'stream_abandoned' | 'stream_compact_abandoned';

/** Weights of each kind in the mix (they need not sum to anything). */
export const MIX: readonly [Kind, number][] = [
  ['inline', 40], ['pool', 8], ['schema', 6], ['unique_schema', 3], ['demo', 5], ['refused', 8],
  ['left_mid_request', 3], ['stream_finalized', 10], ['stream_abandoned', 12], ['stream_compact_abandoned', 5],
];

export interface TrafficTally {
  /** Requests sent, by kind (a streaming session counts each of its requests). */
  requests: Record<Kind, number>;
  /** Streaming starts refused SERVICE_UNAVAILABLE: MAX_SESSIONS reached (the bound doing its job). */
  atCapacity: number;
  /** Answers that were not what the kind expects (network errors included). */
  unexpected: number;
  firstUnexpected: string | null;
}

export function emptyTally(): TrafficTally {
  return { requests: Object.fromEntries(MIX.map(([k]) => [k, 0])) as Record<Kind, number>, atCapacity: 0, unexpected: 0, firstUnexpected: null };
}

const POOL_INPUT = malformedDocument(64_000).text;
const CHUNK = MALFORMED_1KB.text.slice(0, 200);

export class SoakClient {
  readonly #auth: Record<string, string>;
  readonly #mix: readonly [Kind, number][];
  readonly #totalWeight: number;

  /** `without`: kinds left out of the mix (to find which traffic a memory trend comes from). */
  constructor(private readonly url: string, key: string, private readonly random: Random, private readonly tally: TrafficTally, without: readonly string[] = []) {
    this.#auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    this.#mix = MIX.filter(([kind]) => !without.includes(kind));
    this.#totalWeight = this.#mix.reduce((sum, [, w]) => sum + w, 0);
  }

  async run(stopped: () => boolean): Promise<void> {
    while (!stopped()) {
      let roll = this.random.int(this.#totalWeight);
      const kind = this.#mix.find(([, weight]) => (roll -= weight) < 0)![0];
      try {
        await this.#one(kind);
      } catch (error) {
        this.#unexpected(kind, String((error as Error).cause ?? error));
      }
    }
  }

  #unexpected(kind: Kind, detail: string): void {
    this.tally.unexpected++;
    this.tally.firstUnexpected ??= `${kind}: ${detail.slice(0, 200)}`;
  }

  async #post(kind: Kind, path: string, body: unknown, headers = this.#auth, signal?: AbortSignal): Promise<any> {
    this.tally.requests[kind]++;
    const response = await fetch(this.url + path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
    return response.json();
  }

  #expect(kind: Kind, ok: boolean, answer: any): void {
    if (ok) return;
    const error = (answer?.metadata?.errors ?? answer?.errors)?.[0];
    this.#unexpected(kind, error === undefined ? JSON.stringify(answer) : `${error.code}: ${error.message}`);
  }

  /** A start refused because MAX_SESSIONS sessions are open is the bound working, not a fault. */
  #atCapacity(answer: any): boolean {
    const code = (answer?.metadata?.errors ?? answer?.errors)?.[0]?.code;
    if (code !== 'SERVICE_UNAVAILABLE') return false;
    this.tally.atCapacity++;
    return true;
  }

  async #one(kind: Kind): Promise<void> {
    const compact = this.random.chance(0.3);
    const field = compact ? 'content' : 'raw_output';
    const succeeded = (a: any): boolean => a.success === true || a.valid === true;
    switch (kind) {
      case 'inline':
        return this.#expect(kind, succeeded(await this.#post(kind, '/v1/repair', { [field]: MALFORMED_1KB.text })), null);
      case 'pool':
        return this.#expect(kind, succeeded(await this.#post(kind, '/v1/repair', { [field]: POOL_INPUT })), null);
      case 'schema':
        return this.#expect(kind, succeeded(await this.#post(kind, '/v1/repair', { [field]: MALFORMED_1KB.text, schema: REPLY_SCHEMA, mode: 'lenient' })), null);
      case 'unique_schema': {
        // A schema never seen before: compiled, cached, and evicted once the cache is full.
        const schema = { type: 'object', properties: { [`p${this.random.int(1e9)}`]: { type: 'string' } } };
        return this.#expect(kind, succeeded(await this.#post(kind, '/v1/repair', { [field]: '{"a": 1', schema })), null);
      }
      case 'demo': {
        // A new client address each time (the soak server trusts 127.0.0.1 as a proxy): the demo's
        // per-IP table grows until its sweep or its entry cap.
        const ip = `10.${this.random.int(256)}.${this.random.int(256)}.${this.random.int(256)}`;
        const answer = await this.#post(kind, '/v1/demo/repair', { [field]: MALFORMED_1KB.text }, { 'content-type': 'application/json', 'x-forwarded-for': ip });
        return this.#expect(kind, succeeded(answer), answer);
      }
      case 'refused': {
        const which = this.random.int(3);
        const answer = which === 0
          ? await this.#post(kind, '/v1/repair', { raw_output: '[1' }, { authorization: `Bearer wrong-${this.random.int(1e9)}` })
          : which === 1 ? await this.#post(kind, '/v1/repair', '{"raw_output": ') : await this.#post(kind, `/nope/${this.random.int(1e9)}`, '{}');
        return this.#expect(kind, answer.success === false, answer);
      }
      case 'left_mid_request':
        // The client gives up 2 ms in, while its 64 KB repair is read or runs.
        await this.#post(kind, '/v1/repair', { [field]: POOL_INPUT }, this.#auth, AbortSignal.timeout(2)).catch(() => undefined);
        return;
      case 'stream_finalized':
      case 'stream_abandoned': {
        const started = await this.#post(kind, '/v1/repair/stream/start', { echo_buffer: false });
        const id = started.session_id;
        if (typeof id !== 'string') return this.#atCapacity(started) ? undefined : this.#expect(kind, false, started);
        const pushes = kind === 'stream_finalized' ? 5 : 2;
        for (let i = 0; i < pushes; i++) await this.#post(kind, '/v1/repair/stream/push', { session_id: id, chunk: MALFORMED_1KB.text.slice(i * 200, i * 200 + 200) });
        if (kind === 'stream_finalized') {
          const finalized = await this.#post(kind, '/v1/repair/stream/finalize', { session_id: id });
          this.#expect(kind, finalized.success === true, finalized);
        }
        return; // abandoned: never finalized, left to expire
      }
      case 'stream_compact_abandoned': {
        const sessionId = randomUUID();
        const started = await this.#post(kind, '/v1/repair/stream/start', { sessionId });
        if (started.sessionId !== sessionId) return this.#atCapacity(started) ? undefined : this.#expect(kind, false, started);
        await this.#post(kind, '/v1/repair/stream/push', { sessionId, content: CHUNK });
        return;
      }
    }
  }
}

// A streaming session (start, push, finalize) and repairStream, which feeds one from an iterator
// of text and survives losing it: a session that expired while the model paused, or whose server
// went away, is replaced by a new one that is sent everything pushed so far, in one push. The
// final result is then the batch repair of the whole text, as if nothing had happened.
import type { RepairResponse, StreamState } from '../engine/types.js';
import { applyPatch } from './apply-patch.js';
import { JsonmendError } from './errors.js';
import { call, type TransportConfig } from './transport.js';

export interface StreamStart {
  session_id: string;
  expires_at: number;
}

export class JsonmendStream {
  /** The session id the service issued. */
  readonly id: string;
  /** Unix ms when the session expires unless a push renews it (each push does). */
  readonly expiresAt: number;
  readonly #config: TransportConfig;

  constructor(config: TransportConfig, start: StreamStart) {
    this.#config = config;
    this.id = start.session_id;
    this.expiresAt = start.expires_at;
  }

  /** Adds a chunk; resolves with the state of everything pushed so far. */
  async push(chunk: string, options: { signal?: AbortSignal } = {}): Promise<StreamState> {
    const answer = await call<{ state: StreamState }>(this.#config, '/v1/repair/stream/push', { session_id: this.id, chunk },
      { auth: true, retryOn: 'refusals', resultOnFailure: false, signal: options.signal });
    return answer.state;
  }

  /** Repairs the whole buffer and ends the session: the answer batch repair gives for that text. */
  finalize(options: { signal?: AbortSignal } = {}): Promise<RepairResponse> {
    return call<RepairResponse>(this.#config, '/v1/repair/stream/finalize', { session_id: this.id },
      { auth: true, retryOn: 'refusals', resultOnFailure: true, signal: options.signal });
  }
}

export interface StreamRestart {
  /** Why the session was given up: SESSION_NOT_FOUND, NETWORK_ERROR, TIMEOUT or BAD_RESPONSE. */
  error: JsonmendError;
  /** The lost session's id. */
  lostSessionId: string;
  /** The new session's id. */
  sessionId: string;
  /** Characters sent again to the new session. */
  replayedChars: number;
}

/** The session, or whether it kept the last request, is lost: only a new session can go on. */
export function isSessionLoss(error: unknown): error is JsonmendError {
  if (!(error instanceof JsonmendError)) return false;
  return error.code === 'SESSION_NOT_FOUND' || error.code === 'NETWORK_ERROR' || error.code === 'TIMEOUT' || (error.code === 'BAD_RESPONSE' && error.recoverable);
}

export interface FeedOptions {
  /** Restarts allowed per push or finalize before the loss is thrown. */
  maxRestarts: number;
  onState?: ((state: StreamState) => void) | undefined;
  /** Called with the preview (from the states' patch previews) each time it grows, and once with the final value. */
  onPreview?: ((value: unknown, settled: string[]) => void) | undefined;
  onRestart?: ((restart: StreamRestart) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** Pushes each chunk as it arrives, then finalizes; `open` starts a session (used again after a loss). */
export async function feed(
  source: AsyncIterable<string> | Iterable<string>,
  open: () => Promise<JsonmendStream>,
  options: FeedOptions,
): Promise<RepairResponse> {
  const { signal, onPreview } = options;
  let session = await open();
  /** The preview the patches built so far (onPreview). */
  let preview: unknown = null;
  let text = '';
  // True after a restart: the new session holds nothing yet, so the next request first sends `text`.
  let replay = false;

  const recovering = async <T>(operation: () => Promise<T>): Promise<T> => {
    for (let restarts = 0; ; restarts++) {
      try {
        return await operation();
      } catch (error) {
        if (!isSessionLoss(error) || restarts >= options.maxRestarts) throw error;
        const lostSessionId = session.id;
        session = await open();
        replay = true;
        options.onRestart?.({ error, lostSessionId, sessionId: session.id, replayedChars: text.length });
      }
    }
  };

  for await (const chunk of source) {
    if (typeof chunk !== 'string') throw new TypeError(`repairStream reads strings; got ${typeof chunk} (decode bytes first, e.g. with TextDecoderStream)`);
    if (chunk.length === 0) continue;
    text += chunk;
    const state = await recovering(async () => {
      const pushed = await session.push(replay ? text : chunk, { signal });
      replay = false;
      return pushed;
    });
    options.onState?.(state);
    if (onPreview !== undefined && state.partial_patch !== undefined) {
      // A replacement session's first patch adds the whole preview again (path ""): no reset needed.
      const settled = state.settled ?? [];
      if (state.partial_patch.length > 0) preview = applyPatch(preview, state.partial_patch);
      if (state.partial_patch.length > 0 || settled.length > 0) onPreview(preview, settled);
    }
  }
  const result = await recovering(async () => {
    if (replay && text.length > 0) await session.push(text, { signal });
    replay = false;
    return session.finalize({ signal });
  });
  // The last preview is the repaired value: all of it final.
  if (onPreview !== undefined && result.success) onPreview(result.repaired, ['']);
  return result;
}

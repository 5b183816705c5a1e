// The streaming healer: the text healJson answers for the whole reply, sent as deltas while the
// model writes it. Each push reads its delta once (the stream's scanner, commitment.ts) and sends
// what is committed; finish runs the whole-text repair once and sends the rest (heal-json.ts
// settle), which always starts with what was sent.
import { Commitment } from './commitment.js';
import { repairFor, settle, type HealResult } from './heal-json.js';
import { PieceList } from '../scanner/piece-list.js';

export interface JsonHealer {
  /** Takes the model's next delta; returns the text to send now (may be ''). */
  push(delta: string): string;
  /** The stream ended: the last text to send, and the whole result (`result.text` is everything sent). */
  finish(opts?: { truncated?: boolean }): { delta: string; result: HealResult };
}

class StreamingHealer implements JsonHealer {
  private readonly commitment: Commitment;
  private readonly chunks = new PieceList();
  private finished = false;

  constructor(private readonly schema: object | undefined) {
    this.commitment = new Commitment(schema);
  }

  push(delta: string): string {
    if (this.finished) throw new Error('push after finish');
    if (typeof delta !== 'string') throw new TypeError('delta must be a string');
    if (delta.length === 0) return '';
    this.chunks.push(delta);
    return this.commitment.push(delta);
  }

  finish(opts?: { truncated?: boolean }): { delta: string; result: HealResult } {
    if (this.finished) throw new Error('finish called twice');
    this.finished = true;
    const text = this.chunks.join();
    this.chunks.clear();
    const result = settle(text, repairFor(text, this.schema), this.commitment, opts?.truncated === true, this.schema);
    return { delta: result.text.slice(this.commitment.committed.length), result };
  }
}

export function createJsonHealer(opts?: { schema?: object }): JsonHealer {
  return new StreamingHealer(opts?.schema);
}

// The streaming healer: the same text healJson answers, sent as deltas while the model writes it.
import { healJson, type HealResult } from './heal-json.js';

export interface JsonHealer {
  /** Takes the model's next delta; returns the text to send now (may be ''). */
  push(delta: string): string;
  /** The stream ended: the last text to send, and the whole result (`result.text` is everything sent). */
  finish(opts?: { truncated?: boolean }): { delta: string; result: HealResult };
}

class HoldingHealer implements JsonHealer {
  private readonly chunks: string[] = [];
  private finished = false;
  constructor(private readonly schema: object | undefined) {}

  push(delta: string): string {
    if (this.finished) throw new Error('push after finish');
    this.chunks.push(delta);
    return '';
  }

  finish(opts?: { truncated?: boolean }): { delta: string; result: HealResult } {
    if (this.finished) throw new Error('finish called twice');
    this.finished = true;
    const result = healJson(this.chunks.join(''), { schema: this.schema, truncated: opts?.truncated });
    return { delta: result.text, result };
  }
}

export function createJsonHealer(opts?: { schema?: object }): JsonHealer {
  return new HoldingHealer(opts?.schema);
}

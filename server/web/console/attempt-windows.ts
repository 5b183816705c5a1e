// Fixed windows that open at a key's first hit and allow `limit` hits each (the console's per-IP
// attempt and sign-up limits, the per-account failure ceiling). Bounded: past `maxEntries` the
// ended windows, then the oldest tenth, are dropped.
import type { Clock } from '../../accounts/clock.js';

interface Window { start: number; count: number }

export class AttemptWindows {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly maxEntries: number,
    readonly clock: Clock,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  waitSeconds(key: string): number {
    const w = this.#live(key);
    if (w === undefined || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.clock.now()) / 1000));
  }

  hit(key: string): void {
    const w = this.#live(key);
    if (w !== undefined) {
      w.count++;
      return;
    }
    if (this.#windows.size >= this.maxEntries) this.#makeRoom();
    this.#windows.set(key, { start: this.clock.now(), count: 1 });
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }

  #live(key: string): Window | undefined {
    const w = this.#windows.get(key);
    if (w !== undefined && this.clock.now() >= w.start + this.windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return w;
  }

  /** Windows sit in start order: ended ones at the front; past that, the oldest tenth goes. */
  #makeRoom(): void {
    const now = this.clock.now();
    let excess = Math.max(1, Math.floor(this.maxEntries / 10));
    for (const [key, w] of this.#windows) {
      if (now < w.start + this.windowMs && excess-- <= 0) break;
      this.#windows.delete(key);
    }
  }
}

// Bounded LRU of compile results keyed by canonical schema text. Failures are cached too, so a
// client that repeats a bad schema pays for the failed compile once. Bounded both in entries and in
// total key text (compiled code grows with the schema), so memory stays flat under unique schemas.
import { CACHE_MAX_ENTRIES, CACHE_MAX_TEXT } from './limits.js';

export class SchemaCache<V> {
  private readonly entries = new Map<string, V>();
  private textSize = 0;
  private newest: V | undefined;

  constructor(private readonly maxEntries = CACHE_MAX_ENTRIES, private readonly maxText = CACHE_MAX_TEXT) {}

  get size(): number {
    return this.entries.size;
  }

  /** Present, without making it the most recently used. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined && value !== this.newest) {
      // Map keeps insertion order: re-inserting makes this the most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = value;
    }
    return value;
  }

  set(key: string, value: V): void {
    if (this.entries.has(key)) {
      this.entries.delete(key);
      this.textSize -= key.length;
    }
    if (key.length > this.maxText) return;
    this.entries.set(key, value);
    this.textSize += key.length;
    this.newest = value;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.textSize <= this.maxText) break;
      this.entries.delete(oldest);
      this.textSize -= oldest.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.textSize = 0;
    this.newest = undefined;
  }
}

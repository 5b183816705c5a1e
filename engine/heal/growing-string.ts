// The string member a streaming healer writes as it arrives (canonical-writer.ts): its opening quote
// when the scanner opens it, then at the end of each piece the part of it the scanner is sure of,
// and its closing quote once it ends. What it writes must not depend on where the model's text was
// cut into pieces, or a stream could send what the whole text's answer (healJson) does not start
// with. So when the reading stops being clean inside the string, the string is written up to the
// first repair — the same text whether the pieces had already shown part of it or none.
import type { Scanner } from '../scanner/scanner.js';
import type { Effective } from '../schema/effective.js';

export class GrowingString {
  /** The scanner's input offset of the string's opening quote (-1: no string is growing). */
  start = -1;
  /** Depth of the writer's frame that holds it, its member name and schema. */
  depth = 0;
  key: string | undefined = undefined;
  schema: Effective | null = null;
  /** The decoded text written so far. */
  text = '';
  /** Pieces of the scanner's strParts already written. */
  private parts = 0;
  /** The input offset the written text reaches (-1: not known exactly, a surrogate pair was split). */
  private rawAt = -1;
  /** A high surrogate read but not written: its low half comes in the next part. */
  private held = '';

  begin(s: Scanner, depth: number, key: string | undefined, schema: Effective | null): void {
    this.start = s.strStart;
    this.depth = depth;
    this.key = key;
    this.schema = schema;
    this.text = '';
    this.parts = 0;
    this.rawAt = s.strStart + 1;
    this.held = '';
  }

  end(): void {
    this.start = -1;
  }

  /**
   * At the end of a piece: the text read since the last call that is certain, escaped. A decoded
   * `\n` that may yet read as a raw backslash (scan-string.ts sawRawBackslash) and what follows it
   * wait; so does a high surrogate whose low half has not come.
   */
  more(s: Scanner): string {
    const parts = s.strParts;
    const candidates = s.strRawCandidates;
    const certain = candidates.length > 0 ? candidates[0]! : parts.length;
    if (certain <= this.parts) return '';
    let text = this.held;
    for (let k = this.parts; k < certain; k++) text += parts[k]!;
    this.parts = certain;
    // The scanner holds the rest of its window from s.i (scan-string.ts hold), or stops at the candidate.
    this.rawAt = candidates.length > 0 ? candidates[1]! : s.at(s.i);
    const last = text.charCodeAt(text.length - 1);
    this.held = '';
    if (last >= 0xd800 && last <= 0xdbff) { // a high surrogate
      this.held = text.slice(-1);
      text = text.slice(0, -1);
      this.rawAt = -1;
    }
    this.text += text;
    return escapedText(text);
  }

  /**
   * The reading stopped being clean at input offset `at` (-1: not at a known place): the string's
   * text from where the written text reaches up to `at` (or to its closing quote, if that comes
   * first), escaped. Read from the scanner's window, which still holds it: no repair came before
   * `at`, so it is JSON string text as written.
   */
  upTo(s: Scanner, at: number): string {
    if (at < 0 || this.rawAt < 0 || at <= this.rawAt || this.rawAt < s.base) return '';
    const window = s.text;
    const from = this.rawAt - s.base;
    const to = Math.min(at - s.base, window.length);
    let end = from;
    for (; end < to; end++) {
      const c = window.charCodeAt(end);
      if (c === 0x22) break; // " (the string's closing quote)
      if (c === 0x5c) end++; // \ escapes the next character
    }
    if (end > to) end = to - 1; // an escape cut by `at` is left out
    let text: string;
    try {
      text = JSON.parse('"' + window.slice(from, end) + '"') as string;
    } catch {
      return '';
    }
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1); // a high surrogate alone
    this.text += text;
    this.rawAt = -1;
    return escapedText(text);
  }
}

/** `text` as it stands between the quotes of a JSON.stringify'd string. */
export function escapedText(text: string): string {
  return text.length === 0 ? '' : JSON.stringify(text).slice(1, -1);
}

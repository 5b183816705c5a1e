// The canonical JSON text (JSON.stringify's, no whitespace) of the value a stream's scanner is
// building, written as the scanner builds it (scanner ValueSink) and only as far as it is final:
// each change (a container's opener with its member name, a scalar member — number, literal or
// whole string — with its name, a nested container's closer) once the next change shows it stands. The root's closer is never written here: what follows the
// root (another value, a stray member) may still change the answer, so the healer's finish adds it.
// Wherever the text could differ from the canonical text of the value the reading ends with — a
// member name JSON.stringify would move (an array index such as "0"), a name given twice, a value
// replaced, a member the schema removes, a second root — the writer stops for good: what it wrote
// stays a prefix, and the rest comes from the whole-text repair at the end (heal-json.ts).
// A string member of an object grows as it arrives (growing-string.ts): its name and opening quote
// when the scanner opens it, then at the end of each piece (grow()) the part the scanner is sure of;
// its closing quote waits for the string's end like any member. An array's string element waits to
// be whole: it may turn out a name (`[1, 2, "n": 4}`).
import type { ValueSink } from '../scanner/phases.js';
import type { Scanner } from '../scanner/scanner.js';
import type { Effective } from '../schema/effective.js';
import { HIDDEN, type SchemaView } from '../preview/schema-view.js';
import { escapedText, GrowingString } from './growing-string.js';

interface WriterFrame {
  isArray: boolean;
  /** Members written so far: the next one needs a comma when it is not the first. */
  count: number;
  schema: Effective | null;
  /** Names written in this object (null for arrays). */
  names: Set<string> | null;
}

// An object member name JSON.stringify writes before the others (an array index: "0", "17").
const INDEX_NAME = /^(?:0|[1-9]\d{0,9})$/;

export class CanonicalWriter implements ValueSink {
  /** Text written since the last take(). */
  private out = '';
  stopped = false;
  private rootSeen = false;
  /** The root closed: any later change to the value (a stray member, another root) stops the writer. */
  private rootClosed = false;
  private readonly frames: WriterFrame[] = [];
  /**
   * The text of the last change to the value (an opener with its member name, a scalar member with
   * its comma and name, a closer), held until the next change shows it stands and the reading is
   * still clean: `8,336` may be one number (digit groups), `"a" + "b"` one string, `["key": 1`
   * an object. Taken back, what was written still ends between members.
   */
  private tail = '';
  /**
   * Whether the held member is a string member of an object. When the writer stops, such a member
   * is kept without its closing quote: the string itself stands (whatever stopped the writer came
   * after it, or joins more text to it), and a stream may already have sent part of it as it grew,
   * so keeping it makes what is committed the same however the text was cut into pieces.
   */
  private tailIsString = false;
  /** The string member written as it grows. */
  private readonly growing = new GrowingString();

  constructor(private readonly scanner: Scanner, private readonly schema: SchemaView | null) {}

  /**
   * Whether the reading so far needed no repair. A stream's scanner reads a repaired text as the
   * batch scanner does only in the end (its finish reads the whole text again): a piece may read
   * `1,299` as 1 where the whole text reads 1299. So the writer writes only while the scanner has
   * repaired nothing, and stops at the first repair, before the member it concerns is written.
   */
  private clean(): boolean {
    if (this.scanner.log.size === 0 && this.scanner.warnings.length === 0) return true;
    this.stop();
    return false;
  }

  /** The text written since the last call. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }


  // --- ValueSink ----------------------------------------------------------------------------------

  open(isArray: boolean, key: string | undefined): void {
    if (this.stopped || !this.clean()) return;
    if (this.rootClosed || this.growing.start !== -1) return this.stop();
    this.flush();
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) {
      if (this.rootSeen) return this.stop(); // a second root: the answer may become a list of them
      this.rootSeen = true;
      this.tail = isArray ? '[' : '{';
      this.frames.push({ isArray, count: 0, schema: this.schema === null ? null : this.schema.root, names: isArray ? null : new Set() });
      return;
    }
    const schema = this.memberSchema(parent, key, parent.count);
    if (schema === HIDDEN) return this.stop();
    const name = this.member(parent, key);
    if (name === null) return this.stop();
    this.tail = name + (isArray ? '[' : '{');
    this.frames.push({ isArray, count: 0, schema, names: isArray ? null : new Set() });
  }

  value(value: unknown, key: string | undefined): void {
    if (this.stopped || !this.clean()) return;
    if (this.rootClosed) return this.stop();
    if (this.growing.start !== -1) return this.grown(value, key);
    this.flush();
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) return this.stop(); // a scalar root: the healer never writes one
    const schema = this.memberSchema(parent, key, parent.count);
    const shown = schema === HIDDEN || this.schema === null ? value : this.schema.scalar(schema, value);
    if (schema === HIDDEN || shown === HIDDEN) return this.stop();
    const text = JSON.stringify(shown) as string | undefined;
    if (text === undefined) return this.stop();
    const name = this.member(parent, key);
    if (name === null) return this.stop();
    this.tail = name + text;
    this.tailIsString = typeof shown === 'string' && !parent.isArray;
  }

  replace(): void {
    // `"a" + "b"`, digit groups, an array read as an object: the held member is taken back.
    this.stop();
  }

  /** The next change came: the member held last stands. */
  private flush(): void {
    if (this.tail.length === 0) return;
    this.out += this.tail;
    this.tail = '';
    this.tailIsString = false;
  }

  close(): void {
    if (this.stopped || !this.clean()) return;
    if (this.rootClosed || this.growing.start !== -1) return this.stop();
    this.flush();
    const frame = this.frames.pop()!;
    // The root stays open here: the healer's finish closes it with the whole-text answer.
    if (this.frames.length > 0) this.tail = frame.isArray ? ']' : '}';
    else {
      this.frames.push(frame);
      this.rootClosed = true;
    }
  }

  diverge(): void {
    this.stop();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // What stays committed does not depend on how the text was cut into pieces: a string that was
    // growing is written up to the first repair, a string member held whole without its quote.
    if (this.growing.start !== -1) this.out += this.growing.upTo(this.scanner, this.firstIssueAt());
    else if (this.tailIsString) this.out += this.tail.slice(0, -1);
    this.growing.end();
    this.tail = '';
    this.tailIsString = false;
  }

  /** The input offset of the first repair or warning (-1: none, or none with a place). */
  private firstIssueAt(): number {
    let at = this.scanner.log.firstPosition();
    for (const w of this.scanner.warnings) {
      const p = (w as { position?: number }).position;
      if (typeof p === 'number' && (at < 0 || p < at)) at = p;
    }
    return at;
  }

  // --- strings that grow ---------------------------------------------------------------------------

  /**
   * A string opened: a member of an object that its schema lets grow (not an enum, not a number
   * written as a string, which wait to be whole like every scalar) is begun: its name and quote.
   */
  stringStart(): void {
    const s = this.scanner;
    if (this.stopped || s.concat || this.rootClosed || !this.clean()) return;
    if (this.growing.start !== -1) return this.stop(); // the string written did not end as a value
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined || parent.isArray) return;
    const key = s.stack[s.stack.length - 1]!.key;
    const schema = this.memberSchema(parent, key, parent.count);
    if (schema === HIDDEN || (this.schema !== null && !this.schema.growsAsString(schema))) return;
    this.flush();
    const name = this.member(parent, key);
    if (name === null) return this.stop();
    this.out += name + '"';
    this.growing.begin(s, this.frames.length, key, schema);
  }

  /** The end of a piece: the string member the scanner is reading is written as far as it is certain. */
  grow(): void {
    const s = this.scanner;
    if (this.stopped || this.growing.start === -1 || !s.inString || s.strStart !== this.growing.start || !this.clean()) return;
    this.out += this.growing.more(s);
  }

  /** The string written as it grew ended as `value`: the rest of it and its quote are the member's text. */
  private grown(value: unknown, key: string | undefined): void {
    const g = this.growing;
    if (typeof value !== 'string' || this.frames.length !== g.depth || key !== g.key || !value.startsWith(g.text)) return this.stop();
    // A string the schema refuses (a pattern, a length) is left out by the repair: what was written is not the answer.
    if (this.schema !== null && this.schema.scalar(g.schema, value) !== value) return this.stop();
    g.end();
    this.tail = escapedText(value.slice(g.text.length)) + '"';
    this.tailIsString = true;
  }

  // --- helpers ------------------------------------------------------------------------------------

  /**
   * The comma and name that come before a member of `parent`; null when the member cannot be
   * written where it stands (no name, a name given twice, a name JSON.stringify moves first).
   */
  private member(parent: WriterFrame, key: string | undefined): string | null {
    let text = parent.count > 0 ? ',' : '';
    if (!parent.isArray) {
      if (key === undefined || parent.names!.has(key) || INDEX_NAME.test(key)) return null;
      parent.names!.add(key);
      text += JSON.stringify(key) + ':';
    }
    parent.count++;
    return text;
  }

  private memberSchema(parent: WriterFrame, key: string | undefined, index: number): Effective | null | typeof HIDDEN {
    if (this.schema === null) return null;
    if (parent.isArray) return this.schema.element(parent.schema, index);
    return key === undefined ? null : this.schema.member(parent.schema, key);
  }
}

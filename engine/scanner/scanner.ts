// The one forward scanner behind `repair` and `createStream`. It reads text in pieces (a whole input
// at once, or a stream's chunks), keeps all of its state in this object, builds the value as it goes
// with an explicit stack (no recursion: a million `[` cannot overflow anything), and logs each repair.
// When a decision needs characters that have not arrived yet, it holds the undecided tail back and
// resumes there on the next piece; no character is read twice except inside such a short tail.
import { tickDeadline } from '../deadline.js';
import { makeWarning } from '../error-codes.js';
import type { RepairType } from '../repair-kinds.js';
import type { Warning } from '../types.js';
import { htmlCommentAt, isJsonWhitespace, isOtherWhitespace, isWordChar } from './char-codes.js';
import { KIND, RepairLog } from './repair-log.js';
import { codeUnitsOf } from './code-units.js';
import { fastLane } from './fast-lane.js';
import { holdsJsonValue, scanProse, scanThink } from './scan-prose.js';
import { scanString } from './scan-string.js';
import { afterRoot, afterValue, expectColon, expectKey, expectValue } from './structure.js';
import { PieceList } from './piece-list.js';
import { type KeyMemo, memoOf, SHARED_MEMO } from './key-memo.js';
import { AFTER_ROOT, AFTER_VALUE, COLON, DONE, type Frame, HOLD_NONE, KEY, MAX_DEPTH, ROOT_START, SET_NONE, SET_OPEN, THINK, TRAILING, VALUE, type ValueSink } from './phases.js';
import { pieceCanEnd } from './scan-word.js';
import { setMember } from '../schema/value-utils.js';

/** How one pass reads the prose around the JSON: reply-shape.ts chooses it, the pass never changes it. */
export interface ProsePolicy {
  /** Input offset before which a `{` or `[` is prose, not the root (a fenced answer follows); -1 when none. */
  readonly proseUntil: number;
  /** Short one-line bracketed fragments in prose are prose (scan-prose.ts inlineFragmentEnd). */
  readonly inlineFragmentsAreProse: boolean;
  /** Fragments ending a line of prose are prose (scan-prose.ts lineFragmentEnd). */
  readonly lineFragmentsAreProse: boolean;
  /**
   * Array items are strings (a schema says so): a quote followed by `,` and prose that runs on to
   * the real closing quote is inside the item, as it is in an object's value (scan-string.ts
   * quoteInsideValue). Off, `["a", b]` holds a bare element.
   */
  readonly stringItems?: boolean;
}

/** The first reading of a reply, and a stream's. */
export const FIRST_READING: ProsePolicy = { proseUntil: -1, inlineFragmentsAreProse: true, lineFragmentsAreProse: false };

/** What one pass saw of the reply's shape: reply-shape.ts decides from it whether to read the reply again. */
export interface ProseReport {
  /** A fragment in prose (not a placeholder such as `{name}`) was read as prose. */
  skippedFragment: boolean;
  /** The first root was a fragment ending a line of prose (scan-prose.ts lineFragmentEnd). */
  lineFragmentRoot: boolean;
  /** Input offsets of the last <think> tag and of the text after it (-1: none). */
  thinkAt: number;
  thinkBodyAt: number;
  /** The input ended inside that block. */
  thinkUnclosed: boolean;
  /**
   * A bare member name that may be prose: it held a blank (`{The output was cut off. Complete JSON:
   * …`) or is a retraction's one word (`Truncated:`).
   */
  proseName: boolean;
  /** The reply opened with a bracketed label on a line of prose (`[INFO] Processing⏎{…}`). */
  labelLine: boolean;
}

/** A held-back token this long or longer waits aside for the piece that can end it (feed). */
const AWAIT_FROM = 256;
const LINE_COMMENT = 1; // `//` or `#`: ends at a line feed
const BLOCK_COMMENT = 2; // `/*`: ends at `*/`
const HTML_COMMENT = 3; // `<!--`: ends at `-->`

export class Scanner {
  /** The unconsumed window of input; `base` is the input offset of text[0]. */
  text = '';
  /** The window's code units for the fast lane (code-units.ts): loaded on its first entry in a feed, dropped when the feed ends. */
  codes: Uint16Array | null = null;
  i = 0;
  base = 0;
  /** The code unit just before the window's first character (the last one the scanner passed), -1 at the input's start. */
  before = -1;
  final = false;
  phase = ROOT_START;
  /** In ROOT_START: true once the text is known to be prose, so only `{`, `[`, fences end it. */
  prose = false;
  /** What this pass has seen of the reply's shape (reply-shape.ts reads it after the pass). */
  readonly report: ProseReport = { skippedFragment: false, lineFragmentRoot: false, thinkAt: -1, thinkBodyAt: -1, thinkUnclosed: false, proseName: false, labelLine: false };
  readonly stack: Frame[] = [];
  /** Frames by depth, reused: opening a container allocates no frame once its depth has been seen. */
  private readonly frames: Frame[] = [];
  readonly roots: unknown[] = [];
  readonly log = new RepairLog();
  readonly warnings: Warning[] = [];
  /** A comma was consumed in the current container and no value has followed it yet. */
  afterComma = false;
  commaPos = 0;
  /** A `,` after the root value, reported only if no further root follows it. */
  rootCommaPos = -1;
  /** Input offset of the closer that completed the last root container. */
  rootClosePos = -1;
  /** Input offsets of the first root container's opening bracket and of its closer (-1: none yet). */
  firstRootAt = -1;
  firstRootEnd = -1;
  /** The reading stopped inside an open container (a closing fence there): text after it was not read. */
  cutInside = false;
  /** Input offsets where each root container opened and closed, in pairs (content-check.ts reads them). */
  readonly rootSpans: number[] = [];
  /** The last value emitted was a string and a `+` followed it: the next string is appended. */
  concat = false;
  lastWasString = false;
  fenced = false;
  trailingReported = false;
  jsonp = false;
  /** Open `Name(` wrappers (`ObjectId("…")`, `NumberLong(2)`) whose `)` is still to come. */
  calls = 0;
  /** The last few characters of leading prose (JSONP callback detection). */
  proseTail = '';
  proseHasText = false;
  proseStart = 0;
  /** Input offset after a lone closing reasoning tag in the prose (`…</think>`): the prose before it is reasoning. */
  reasoningEnd = -1;
  /** The text that ends the reasoning block being skipped (THINK): `</think`, `</reasoning`, … or a blank line. */
  thinkCloser = '</think';
  /** Nesting went past MAX_DEPTH: the input is refused rather than built into a value nobody can serialize. */
  tooDeep = false;
  nanWarned = false;
  /** The last thing read after the root was a markup tag (`</tool_call>`, `<function=g>`): a bracket after it is a value. */
  afterTag = false;
  leftOutWarned = false;
  truncatedWarned = false;
  /** The input ended inside a member's or element's scalar value (a string, number or literal): that value is cut. */
  cutInValue = false;
  /**
   * Set by finish() when containers were still open at the end of a single root: the path (names,
   * indices) from the root to the innermost open container, and whether that container's last
   * member is a scalar the end fell inside. repair.ts reads it to drop a cut member a schema rejects.
   */
  cutPath: Array<string | number> | null = null;
  cutLeaf = false;
  /** finish() found containers open: the end of the input closed them. */
  leftOpen = false;
  // String state, live while inString.
  inString = false;
  strIsKey = false;
  strOpen = 0;
  strClose = 0;
  strStart = 0;
  readonly strParts: string[] = [];
  /** The string has shown a backslash JSON has no escape for (`\d`, `\U`): its others may be raw too. */
  strRawSeen = false;
  /** Escapes decoded so far that read as raw backslashes once strRawSeen: (part index, input offset, letter) triples. */
  readonly strRawCandidates: number[] = [];
  /** The string has shown a backslash JSON has no escape for (not only a `\b`/`\f` before a letter). */
  strInvalidSeen = false;
  /** The string has shown an unescaped inner quote (quoted speech, a title): it is text that may run over lines. */
  strQuoteSeen = false;
  /** Input offset of the first `\b`/`\f` before a letter read as a raw backslash in the string; -1 none. */
  strRawChosenAt = -1;
  /** Per nesting depth, the names of the last object closed there (key-memo.ts): the shared table until this scanner closes an object too wide to share. */
  keyMemo: KeyMemo = SHARED_MEMO;
  /** Input offset of the last control character reported inside a string. */
  controlSeen = -1;
  /** Input offset where the search for an open block's closer resumes (scan-block.ts); -1 when no block is open. */
  blockSearch = -1;
  /** What the held-back token waits for (phases.ts HOLD_*), set where its scan reached the window's end. */
  heldKind = HOLD_NONE;
  /** Pieces that arrived after a long held token and cannot end it: joined to the window when one can. */
  private readonly aside = new PieceList();
  /** Characters waiting aside (a held token's pieces not yet read). */
  get asideLength(): number {
    return this.aside.length;
  }
  /** Inside a comment the window ended in (LINE_COMMENT, BLOCK_COMMENT; 0 none), from input offset commentStart. */
  comment = 0;
  commentStart = 0;
  /** Told of every change to the value (a stream's progressive preview); null in batch repairs. */
  sink: ValueSink | null = null;
  /**
   * The sink has not been told of the `{` on top of the stack yet: its first member decides whether
   * it opened an object or a Python set (structure.ts readAsSet), and a preview never takes back
   * what it showed. Any other change to the value tells it first, as an object (showOpen).
   */
  openPending = false;

  /**
   * `policy`: how prose around the JSON is read. `base`: the input offset of the first piece's
   * first character, when a pass reads the reply from part-way through it.
   */
  constructor(readonly policy: ProsePolicy = FIRST_READING, base = 0) {
    this.base = base;
  }

  /** The window's code units (code-units.ts), copied on the first call in a feed. */
  codeUnits(): Uint16Array {
    return this.codes ?? (this.codes = codeUnitsOf(this.text));
  }

  /** Absolute input offset of window index `i`. */
  at(i: number): number {
    return this.base + i;
  }

  record(type: RepairType, windowIndex: number): void {
    this.log.record(type, this.base + windowIndex);
  }

  /** record() by the type's index in KIND (the fast lane's repair sites). */
  recordKind(kind: number, windowIndex: number): void {
    this.log.recordKind(kind, this.base + windowIndex);
  }

  warnNan(windowIndex: number): void {
    if (this.nanWarned) return;
    this.nanWarned = true;
    this.warnings.push(makeWarning('NAN_REPLACED', undefined, { position: this.base + windowIndex }));
  }

  /**
   * The input ends inside a key, string, number or literal, or right after a colon or a comma: the
   * model was cut off (its output-token limit) mid-way, so what followed is unknown — a warning, so the reply is at most medium.
   * `position`: the input offset where the cut value starts.
   */
  warnTruncated(position: number): void {
    if (this.truncatedWarned) return;
    this.truncatedWarned = true;
    this.warnings.push(makeWarning('TRUNCATED_OUTPUT', undefined, { position }));
  }

  /**
   * Text dropped around the answer holds data of its own (another JSON value, a scalar, `key: value`
   * lines): the answer left it out, and a warning says so, once. `position`: where that text starts.
   */
  warnLeftOut(position: number): void {
    if (this.leftOutWarned) return;
    this.leftOutWarned = true;
    this.warnings.push(makeWarning('VALUES_LEFT_OUT', undefined, { position }));
  }

  /** Scans a piece of input. `final` says no more input follows. */
  feed(piece: string, final: boolean): void {
    const aside = this.aside;
    const held = this.text.length - this.i + aside.length;
    if (!final && this.heldKind !== HOLD_NONE && held >= AWAIT_FROM) {
      // A long token waits for the character that ends it; reading it again on every piece would
      // make a stream quadratic in the token's length.
      const last = aside.length > 0 ? aside.last() : this.text;
      if (!pieceCanEnd(this.heldKind, last.charCodeAt(last.length - 1), piece)) {
        aside.push(piece);
        return;
      }
    }
    this.heldKind = HOLD_NONE;
    if (aside.length > 0) {
      piece = aside.join() + piece;
      aside.clear();
    }
    if (this.i >= this.text.length) {
      if (this.text.length > 0) this.before = this.text.charCodeAt(this.text.length - 1);
      this.base += this.text.length;
      this.text = piece;
    } else {
      // Keep the held-back tail (a short undecided token) and append the new piece to it.
      if (this.i > 0) this.before = this.text.charCodeAt(this.i - 1);
      this.base += this.i;
      this.text = this.text.slice(this.i) + piece;
    }
    this.i = 0;
    this.final = final;
    this.codes = null;
    if (this.comment === 0 || this.endComment()) this.run();
    this.codes = null;
  }

  /** Reads on in the comment the last window ended in. False when this window ends inside it too. */
  private endComment(): boolean {
    const text = this.text;
    const line = this.comment === LINE_COMMENT;
    const html = this.comment === HTML_COMMENT;
    const end = line ? text.indexOf('\n') : text.indexOf(html ? '-->' : '*/');
    if (end < 0 && !this.final) {
      // A `*` (`-`, `--`) at the end may be the first part of `*/` (`-->`): it stays in the window.
      this.i = html ? Math.max(0, text.length - 2) : !line && text.charCodeAt(text.length - 1) === 0x2a ? text.length - 1 : text.length; // *
      return false;
    }
    this.comment = 0;
    this.i = end < 0 ? text.length : line ? end + 1 : html ? end + 3 : end + 2;
    return true;
  }

  private run(): void {
    for (;;) {
      tickDeadline(); // a caller's time limit (deadline.ts): the clock is read every 1024 steps
      if (this.inString) {
        if (!scanString(this)) return;
        continue;
      }
      const phase = this.phase;
      if (phase === ROOT_START) {
        if (!scanProse(this)) return;
        continue;
      }
      if (phase === THINK) {
        if (!scanThink(this)) return;
        continue;
      }
      if (phase === TRAILING || phase === DONE) {
        if (phase === TRAILING && !this.trailingReported) this.reportTrailing();
        this.i = this.text.length;
        if (this.final) this.finish();
        return;
      }
      if (this.stack.length > 0 && !this.concat) {
        fastLane(this);
        if (this.tooDeep) return;
      }
      const now = this.phase;
      if (!this.skipTrivia()) return;
      if (this.i >= this.text.length) {
        if (this.final) this.finish();
        return;
      }
      const c = this.text.charCodeAt(this.i);
      let progressed: boolean;
      switch (now) {
        case VALUE: progressed = expectValue(this, c); break;
        case KEY: progressed = expectKey(this, c); break;
        case COLON: progressed = expectColon(this, c); break;
        case AFTER_VALUE: progressed = afterValue(this, c); break;
        default: progressed = afterRoot(this, c); break;
      }
      if (!progressed) return;
    }
  }

  /** Skips whitespace and comments. False when the window ends inside an undecided comment start. */
  skipTrivia(): boolean {
    const text = this.text;
    const codes = this.codeUnits();
    const len = text.length;
    let i = this.i;
    while (i < len) {
      const c = codes[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { // space, LF, CR, tab
        i++;
        continue;
      }
      if (c === 0x2f) { // /
        if (i + 1 >= len) {
          if (this.final) break;
          this.i = i;
          return false;
        }
        const next = text.charCodeAt(i + 1);
        if (next !== 0x2f && next !== 0x2a) break; // not // nor /*: a value such as a regex
        const end = next === 0x2f ? text.indexOf('\n', i + 2) : text.indexOf('*/', i + 2);
        // repair: `//` and `/* */` comments are removed
        this.record('removed_comments', i);
        if (end < 0 && !this.final) return this.awaitCommentEnd(next === 0x2f ? LINE_COMMENT : BLOCK_COMMENT, i, i + 2);
        i = end < 0 ? len : next === 0x2f ? end + 1 : end + 2;
        continue;
      }
      if (c === 0x23) { // #
        if (this.phase === VALUE) {
          if (i + 1 >= len && !this.final) {
            this.i = i;
            return false;
          }
          // `"color": #ff0000`, `"tag": #python`: a value, not a comment (those have a space after #)
          if (i + 1 < len && isWordChar(text.charCodeAt(i + 1))) break;
        }
        const end = text.indexOf('\n', i + 1);
        // repair: `#` comments (Python, YAML habits) are removed
        this.record('removed_comments', i);
        if (end < 0 && !this.final) return this.awaitCommentEnd(LINE_COMMENT, i, i + 1);
        i = end < 0 ? len : end + 1;
        continue;
      }
      if (c === 0x3c && this.stack.length > 0) { // < — `<!-- … -->` between a container's tokens
        const comment = htmlCommentAt(text, i, this.final);
        if (comment < 0) {
          this.i = i;
          return false;
        }
        if (comment === 0) break;
        const end = text.indexOf('-->', i + 4);
        // repair: an HTML comment inside a container is removed, as `/* */` is; markup in JSON is
        // foreign, so a reader may have meant it as text: medium
        this.log.doubt('removed_comments', this.base + i, 'medium');
        if (end < 0 && !this.final) return this.awaitCommentEnd(HTML_COMMENT, i, i + 4);
        i = end < 0 ? len : end + 3;
        continue;
      }
      if (isOtherWhitespace(c)) {
        // repair: no-break and other Unicode spaces between tokens are dropped
        this.record('normalized_whitespace', i);
        i++;
        continue;
      }
      break;
    }
    this.i = i;
    return true;
  }

  /**
   * The window ends inside the comment that starts at index `start` (its text from `body`): the
   * comment is consumed now and the next window reads on where this one stopped (endComment), so a
   * long comment streamed in many pieces is read once. False: more input is needed.
   */
  private awaitCommentEnd(kind: number, start: number, body: number): false {
    const len = this.text.length;
    this.comment = kind;
    this.commentStart = this.base + start;
    // A `*` at the end may be the first half of `*/` (not the one of the opening `/*`); a `-` or
    // `--` the first part of `-->`.
    this.i = kind === BLOCK_COMMENT && len - 1 >= body && this.text.charCodeAt(len - 1) === 0x2a ? len - 1 // *
      : kind === HTML_COMMENT ? Math.max(body, len - 2) : len;
    return false;
  }

  // --- building the value -------------------------------------------------------------------------

  /** Places a finished value into the current container (or as a root). */
  emit(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined) {
      this.emitInto(top, value);
      return;
    }
    this.afterComma = false;
    this.addRoot(value);
    if (this.sink !== null) this.sink.value(value, undefined);
    this.phase = AFTER_ROOT;
  }

  /** emit() when the innermost container `top` is known (the fast lane keeps it). */
  emitInto(top: Frame, value: unknown): void {
    this.afterComma = false;
    if (this.sink !== null) {
      this.showOpen(false);
      this.sink.value(value, top.isArray ? undefined : top.key);
    }
    if (top.isArray) (top.container as unknown[]).push(value);
    else {
      setMember(top.container as Record<string, unknown>, top.key!, value);
      top.lastKey = top.key!;
      top.key = undefined;
      top.members++;
    }
    this.phase = AFTER_VALUE;
  }

  /** Replaces the value emitted last (string concatenation `"a" + "b"`). */
  replaceLast(value: unknown): void {
    if (this.sink !== null) {
      this.showOpen(false);
      this.sink.replace(value);
    }
    this.placeLast(this.stack[this.stack.length - 1], value);
  }

  /** Sets `value` where the value placed last in `frame` is (the last root when `frame` is undefined); the sink is not told. */
  placeLast(frame: Frame | undefined, value: unknown): void {
    if (frame === undefined) this.roots[this.roots.length - 1] = value;
    else if (frame.isArray) {
      const arr = frame.container as unknown[];
      arr[arr.length - 1] = value;
    } else setMember(frame.container as Record<string, unknown>, frame.lastKey, value);
  }

  lastValue(): unknown {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return this.roots[this.roots.length - 1];
    if (top.isArray) {
      const arr = top.container as unknown[];
      return arr[arr.length - 1];
    }
    return (top.container as Record<string, unknown>)[top.lastKey];
  }

  /**
   * A lone closing reasoning tag after the root (`{"a": 1}</think>{"a": 2}`): everything before it
   * was the model's reasoning, so the values read so far were drafts. They are dropped and the
   * reply is read on from after the tag as if it began there.
   */
  dropReasoning(windowIndex: number): void {
    // repair: the text before a lone `</think>` is reasoning, dropped with its drafts
    this.log.record('stripped_leading_text', this.firstRootAt >= 0 ? this.firstRootAt : this.base + windowIndex);
    if (this.sink !== null) this.sink.diverge();
    this.roots.length = 0;
    this.rootSpans.length = 0;
    this.firstRootAt = -1;
    this.firstRootEnd = -1;
    this.rootClosePos = -1;
    this.rootCommaPos = -1;
    this.lastWasString = false;
    this.trailingReported = false;
    this.phase = ROOT_START;
    this.prose = false;
    this.reasoningEnd = this.base + windowIndex;
  }

  /** Opens `{` or `[` at window index i. The container joins its parent at once, so a partial tree is always whole. */
  open(isArray: boolean, i: number): void {
    if (this.stack.length >= MAX_DEPTH) {
      this.tooDeep = true;
      this.phase = DONE;
      this.i = this.text.length;
      return;
    }
    const container: Record<string, unknown> | unknown[] = isArray ? [] : {};
    const top = this.stack[this.stack.length - 1];
    if (this.sink !== null) {
      this.showOpen(false);
      // A `{` is told once its first member shows whether it opened an object or a set.
      if (isArray) this.sink.open(true, top === undefined || top.isArray ? undefined : top.key);
      else this.openPending = true;
    }
    if (top === undefined) {
      if (this.firstRootAt < 0) this.firstRootAt = this.at(i);
      this.rootSpans.push(this.at(i));
      this.addRoot(container);
    } else if (top.isArray) (top.container as unknown[]).push(container);
    else {
      setMember(top.container as Record<string, unknown>, top.key!, container);
      top.lastKey = top.key!;
      top.key = undefined;
      top.members++;
    }
    const depth = this.stack.length;
    let frame = this.frames[depth];
    if (frame === undefined) {
      frame = { container, isArray, key: undefined, lastKey: '', keyPos: 0, members: 0, memoHits: 0, bracketed: false, tuple: false, set: SET_NONE, openAt: 0 };
      this.frames[depth] = frame;
    } else {
      frame.container = container;
      frame.isArray = isArray;
      frame.key = undefined;
      frame.members = 0;
      frame.memoHits = 0;
      frame.bracketed = false;
      frame.tuple = false;
    }
    frame.set = isArray ? SET_NONE : SET_OPEN;
    frame.openAt = this.at(i);
    this.stack.push(frame);
    this.phase = isArray ? VALUE : KEY;
    this.afterComma = false;
    this.lastWasString = false;
    this.i = i + 1;
  }

  /**
   * Tells the sink of the `{` on top of the stack when it was held back (openPending): as an
   * object, or as an array when it opened a Python set. False when nothing was held back.
   */
  showOpen(isArray: boolean): boolean {
    if (!this.openPending) return false;
    this.openPending = false;
    const parent = this.stack[this.stack.length - 2];
    this.sink!.open(isArray, parent === undefined || parent.isArray ? undefined : parent.lastKey);
    return true;
  }

  private addRoot(value: unknown): void {
    if (this.roots.length === 1) {
      // repair: several top-level values (NDJSON, `{}{}`) come back as one array of them
      this.log.record('wrapped_multiple_values', this.base + this.i);
      if (this.sink !== null) this.sink.diverge();
    }
    this.rootCommaPos = -1;
    this.roots.push(value);
  }

  /** Closes the innermost container; `repairType` names the closer we had to supply, if any. */
  close(repairType: RepairType | undefined, windowIndex: number): void {
    const depth = this.stack.length;
    if (this.sink !== null) {
      this.showOpen(false);
      this.sink.close();
    }
    const frame = this.stack.pop()!;
    if (!frame.isArray && frame.members > 0) {
      // Rows of an array repeat their names: when this object's names all came from the memo, in
      // order and no more, the memo already describes it and no name list is made.
      const memo = this.keyMemo[depth];
      if (memo === undefined || frame.memoHits !== frame.members || memo.length !== frame.members) {
        this.keyMemo = memoOf(frame.container as object, depth, this.keyMemo);
      }
    }
    if (repairType !== undefined) this.record(repairType, windowIndex);
    if (this.afterComma) {
      // repair: a comma before the closer (`[1,2,]`) is dropped
      this.log.recordKind(KIND.removed_trailing_comma, this.commaPos);
      this.afterComma = false;
    }
    if (!frame.isArray && frame.key !== undefined) {
      // repair: a member name with no value is dropped, not given an invented value; cut off by
      // the end of the input it is plain truncation, closed by `}` mid-text (`{"a"}`) it is a guess
      const atEnd = this.final && windowIndex >= this.text.length;
      this.log.record(atEnd ? 'removed_truncated_member' : 'removed_member_without_value', frame.keyPos);
    }
    this.phase = this.stack.length === 0 ? AFTER_ROOT : AFTER_VALUE;
    if (this.stack.length === 0) {
      this.rootClosePos = this.base + windowIndex;
      if (this.firstRootEnd < 0) this.firstRootEnd = this.rootClosePos;
      this.rootSpans.push(this.rootClosePos);
    }
    this.lastWasString = false;
  }

  /** End of input: closes whatever is open. */
  finish(): void {
    if (this.phase === DONE) return;
    const end = this.text.length;
    if (this.stack.length > 0) {
      this.leftOpen = true;
      // The input ends right after a comma, or after a member name or its colon: the reply was cut
      // there (a member or element was about to follow), so it is never `high` (TRUNCATED_OUTPUT).
      const top = this.stack[this.stack.length - 1]!;
      // The same after an opener (`{"a": [`): what the container held is unknown, not empty.
      if (this.afterComma) this.warnTruncated(this.commaPos);
      else if (!top.isArray && top.key !== undefined) this.warnTruncated(top.keyPos);
      else if (top.isArray ? (top.container as unknown[]).length === 0 : top.members === 0) this.warnTruncated(this.at(end));
      if (this.roots.length === 1) this.recordCutPath();
    }
    while (this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1]!;
      // repair: brackets left open by a truncated reply are closed
      this.close(top.isArray ? 'closed_array_bracket' : 'closed_object_bracket', end);
    }
    if (this.rootCommaPos >= 0) this.log.record('removed_trailing_comma', this.rootCommaPos);
    this.phase = DONE;
    this.i = end;
  }

  /** The path to the innermost container open at the end (cutPath), read before finish() closes them. */
  private recordCutPath(): void {
    const stack = this.stack;
    const path: Array<string | number> = [];
    for (let k = 0; k < stack.length; k++) {
      const frame = stack[k]!;
      const last = k === stack.length - 1;
      if (last && !(this.cutInValue && frame.key === undefined)) break;
      path.push(frame.isArray ? (frame.container as unknown[]).length - 1 : frame.lastKey);
    }
    this.cutLeaf = path.length === stack.length;
    this.cutPath = path;
  }

  /** Is window index i the start of a ``` fence? -1 when the window ends too early to say. */
  fenceAt(i: number): number {
    const text = this.text;
    if (i + 3 > text.length) {
      if (!this.final && text.startsWith('`'.repeat(text.length - i), i)) return -1;
      return 0;
    }
    return text.charCodeAt(i + 1) === 0x60 && text.charCodeAt(i + 2) === 0x60 ? 1 : 0; // ` `
  }

  /**
   * Skips an opening fence's language tag line. False when the line has not ended yet. `inside`:
   * the fence opens inside a container (`[```json\n{…}`), whose bracket may or may not belong to
   * the JSON — a reading chosen, so medium confidence.
   */
  skipFenceLine(i: number, inside = false): boolean {
    const text = this.text;
    const len = text.length;
    let j = i + 3;
    while (j < len && text.charCodeAt(j) === 0x60) j++; // more backticks
    while (j < len && /[\w+.-]/.test(text[j]!)) j++; // the language tag: json, jsonc, JSON5 …
    while (j < len && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j++; // spaces, tabs
    if (j >= len && !this.final) return false;
    // repair: a markdown code fence (```json) around the JSON is removed
    if (inside) this.log.doubt('removed_markdown_fence', this.base + i, 'medium');
    else this.record('removed_markdown_fence', i);
    this.fenced = true;
    this.i = j;
    return true;
  }

  /** Text after the JSON (after a closing fence, say) is reported once, when it is more than blanks. */
  private reportTrailing(): void {
    const text = this.text;
    for (let i = this.i; i < text.length; i++) {
      if (!isJsonWhitespace(text.charCodeAt(i))) {
        // repair: text after the JSON is dropped; medium confidence when it holds a JSON value of its own
        if (holdsJsonValue(text, i, text.length)) {
          this.log.doubt('stripped_trailing_text', this.base + i, 'medium');
          this.warnLeftOut(this.base + i);
        } else this.record('stripped_trailing_text', i);
        this.trailingReported = true;
        return;
      }
    }
  }
}

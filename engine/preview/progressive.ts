// A stream's progressive preview: a value of its own that grows as the scanner builds the real one,
// told of each change as it happens (scanner ValueSink), so a push costs what it adds, never the
// value so far. What it promises a UI (docs/streaming.md "Preview modes"): a value never changes type
// once shown; numbers, literals and names appear only whole; strings grow by appending; arrays and
// objects only gain members; with a schema a member appears as finalize will have it. Where the
// scanner takes back what it built (scanner ValueSink.diverge) the preview stops growing rather than
// break a promise, and finalize carries the answer.
//
// Patch mode records the same changes as JSON Patch operations (RFC 6902 `add`, plus `append` for
// text added to a string, whose path is left out when the session's previous operation named the
// same string): a container first shown in a push is sent once, as it stands at the end of that
// push, so a session's operations add up to about the document's size, whatever the nesting.
import type { ValueSink } from '../scanner/phases.js';
import type { Scanner } from '../scanner/scanner.js';
import { setMember } from '../schema/value-utils.js';
import { escapeToken } from '../schema/json-pointer.js';
import type { Effective } from '../schema/effective.js';
import type { PatchOperation } from '../types.js';
import { HIDDEN, type SchemaView } from './schema-view.js';

type Container = Record<string, unknown> | unknown[];

interface PreviewFrame {
  /** The preview's container; null when the container is left out (a member finalize removes). */
  dst: Container | null;
  isArray: boolean;
  pointer: string;
  schema: Effective | null;
  /** Members the scanner set here so far, shown or not (an element's schema goes by its index). */
  count: number;
  /** The push that first showed this container: its members need no operations in that push. */
  shownIn: number;
  /** How many values had settled in this push when this container was shown (when that was in this push). */
  settledMark: number;
  /** The name or index of the member set last, when it is shown; null otherwise. */
  last: string | number | null;
  /** The operation that added this container in this push (patch mode), while it is open. */
  op: PatchOperation | null;
}

/** The string the scanner is reading, shown as it grows. */
interface GrowingString {
  frame: PreviewFrame;
  key: string | number;
  pointer: string;
  /** The scanner's input offset of its opening quote: another offset is another string. */
  start: number;
  /** Pieces of the scanner's strParts already shown. */
  partsShown: number;
}

export class ProgressivePreview implements ValueSink {
  /** The preview (undefined until something is shown). */
  root: unknown = undefined;
  /** Pointers whose values became final in this push (a settled container's members with it). */
  settled: string[] = [];
  // The values settled in this push as (container pointer, member) pairs, null for the container
  // itself: most are dropped when their container settles in the same push, so their pointers are
  // only written for those left when the push ends.
  private readonly settledIn: string[] = [];
  private readonly settledKey: Array<string | number | null> = [];
  /** Frames by depth, reused: showing a container allocates no frame once its depth has been seen. */
  private readonly pool: PreviewFrame[] = [];
  /** Operations from the previous push's preview to this one (patch mode). */
  ops: PatchOperation[] = [];
  private readonly frames: PreviewFrame[] = [];
  private push = 0;
  private stopped = false;
  private growing: GrowingString | null = null;
  /** Input offset of a string the preview waits to see whole (its schema does not let it grow). */
  private heldString = -1;
  /**
   * The path of the session's last operation (patch mode): an `append` to the same string leaves its
   * path out, so a push into a string nested a thousand levels deep costs its text, not the path.
   */
  private lastPath: string | null = null;

  constructor(private readonly recordOps: boolean, private readonly schema: SchemaView | null) {}

  /** Starts a push: `settled` and `ops` are the new push's. */
  begin(): void {
    this.push++;
    this.settled = [];
    this.settledIn.length = 0;
    this.settledKey.length = 0;
    this.ops = [];
  }

  /** Ends a push: the string still being read is shown as far as it is certain. */
  end(s: Scanner): void {
    if (s.tooDeep) this.stopped = true;
    if (!this.stopped && s.inString && !s.strIsKey && !s.concat) this.showGrowing(s);
    for (let k = 0; k < this.settledIn.length; k++) {
      const key = this.settledKey[k]!;
      this.settled.push(key === null ? this.settledIn[k]! : pointerOf(this.settledIn[k]!, key));
    }
    // An operation's container must stay as it is at the end of this push, while the preview's goes
    // on growing. Containers that closed never change again and are sent as they are; only the open
    // ones (one path down from the container the operation added) are copied, member lists only.
    const frames = this.frames;
    for (let d = 0; d < frames.length; d++) {
      const op = frames[d]!.op;
      if (op === null) continue;
      op.value = snapshot(frames, d);
      for (let k = d; k < frames.length; k++) frames[k]!.op = null;
      break;
    }
  }

  // --- ValueSink ----------------------------------------------------------------------------------

  open(isArray: boolean, key: string | undefined): void {
    if (this.stopped) return;
    if (this.growing !== null) return this.diverge();
    const parent = this.frames[this.frames.length - 1];
    const container: Container = isArray ? [] : {};
    if (parent === undefined) {
      if (this.root !== undefined) return this.diverge();
      this.root = container;
      this.frames.push(this.frame(container, isArray, '', this.schema === null ? null : this.schema.root));
      this.frames[this.frames.length - 1]!.op = this.add('', container);
      return;
    }
    const index = parent.count++;
    if (parent.dst === null) {
      this.frames.push(this.frame(null, isArray, '', null));
      return;
    }
    const name: string | number | undefined = parent.isArray ? (parent.dst as unknown[]).length : key;
    const schema = this.memberSchema(parent, key, index);
    if (name === undefined || schema === HIDDEN) {
      parent.last = null;
      this.frames.push(this.frame(null, isArray, '', null));
      return;
    }
    if (!parent.isArray && Object.hasOwn(parent.dst, name)) return this.diverge(); // a name given twice: its value is replaced
    const pointer = pointerOf(parent.pointer, name);
    this.set(parent, name, container);
    this.frames.push(this.frame(container, isArray, pointer, schema));
    if (parent.shownIn !== this.push) this.frames[this.frames.length - 1]!.op = this.add(pointer, container);
  }

  stringStart(): void {
    // A string shows at the end of a push (showGrowing), as far as it is certain then.
  }

  value(value: unknown, key: string | undefined): void {
    if (this.stopped) return;
    const parent = this.frames[this.frames.length - 1];
    const growing = this.growing;
    if (growing !== null) {
      this.growing = null;
      if (typeof value !== 'string' || growing.frame !== parent || (!parent.isArray && key !== growing.key)) return this.diverge();
      const dst = parent.dst as Record<string | number, unknown>;
      const shown = dst[growing.key] as string;
      if (!value.startsWith(shown)) return this.diverge();
      parent.count++;
      if (value.length > shown.length) {
        this.set(parent, growing.key, value);
        if (parent.shownIn !== this.push) this.append(growing.pointer, value.slice(shown.length));
      }
      this.settle(growing.pointer, null);
      return;
    }
    this.heldString = -1;
    if (parent === undefined) {
      if (this.root !== undefined) return this.diverge();
      const shown = this.schema === null ? value : this.schema.scalar(this.schema.root, value);
      if (shown === HIDDEN) return;
      this.root = shown;
      this.add('', shown);
      this.settle('', null);
      return;
    }
    const index = parent.count++;
    if (parent.dst === null) return;
    const name: string | number | undefined = parent.isArray ? (parent.dst as unknown[]).length : key;
    const schema = this.memberSchema(parent, key, index);
    const shown = schema === HIDDEN || this.schema === null ? value : this.schema.scalar(schema, value);
    if (name === undefined || schema === HIDDEN || shown === HIDDEN) {
      parent.last = null;
      return;
    }
    if (!parent.isArray && Object.hasOwn(parent.dst, name)) return this.diverge();
    this.set(parent, name, shown);
    // A coerced value may be a container (a stringified object): it is whole, and never changes again.
    if (parent.shownIn !== this.push) this.add(pointerOf(parent.pointer, name), shown);
    this.settle(parent.pointer, name);
  }

  replace(value: unknown): void {
    if (this.stopped) return;
    // `"a" + "b"`: the string shown grows; any other rewrite takes back what was shown.
    const parent = this.frames[this.frames.length - 1];
    if (this.growing !== null || parent === undefined || parent.dst === null || parent.last === null || typeof value !== 'string') {
      return this.diverge();
    }
    const shown = (parent.dst as Record<string | number, unknown>)[parent.last];
    if (typeof shown !== 'string' || !value.startsWith(shown) || this.schema !== null) return this.diverge();
    const pointer = pointerOf(parent.pointer, parent.last);
    this.set(parent, parent.last, value);
    if (parent.shownIn !== this.push && value.length > shown.length) this.append(pointer, value.slice(shown.length));
  }

  close(): void {
    if (this.stopped) return;
    if (this.growing !== null) return this.diverge();
    const frame = this.frames.pop()!;
    frame.op = null; // closed: the operation's value stays as it is
    if (frame.dst === null) return;
    // Its members settle with it: only the container is listed.
    const mark = frame.shownIn === this.push ? frame.settledMark : 0;
    this.settledIn.length = mark;
    this.settledKey.length = mark;
    this.settle(frame.pointer, null);
  }

  diverge(): void {
    this.stopped = true;
    this.growing = null;
  }

  // --- helpers ------------------------------------------------------------------------------------

  private frame(dst: Container | null, isArray: boolean, pointer: string, schema: Effective | null): PreviewFrame {
    const depth = this.frames.length;
    let frame = this.pool[depth];
    if (frame === undefined) {
      frame = { dst, isArray, pointer, schema, count: 0, shownIn: this.push, settledMark: this.settledIn.length, last: null, op: null };
      this.pool[depth] = frame;
      return frame;
    }
    frame.dst = dst;
    frame.isArray = isArray;
    frame.pointer = pointer;
    frame.schema = schema;
    frame.count = 0;
    frame.shownIn = this.push;
    frame.settledMark = this.settledIn.length;
    frame.last = null;
    frame.op = null;
    return frame;
  }

  /** `key` of the container at `pointer` became final (null: the container itself). */
  private settle(pointer: string, key: string | number | null): void {
    this.settledIn.push(pointer);
    this.settledKey.push(key);
  }

  private memberSchema(parent: PreviewFrame, key: string | undefined, index: number): Effective | null | typeof HIDDEN {
    if (this.schema === null) return null;
    return parent.isArray ? this.schema.element(parent.schema, index) : key === undefined ? null : this.schema.member(parent.schema, key);
  }

  private set(frame: PreviewFrame, name: string | number, value: unknown): void {
    if (frame.isArray) (frame.dst as unknown[])[name as number] = value;
    else setMember(frame.dst as Record<string, unknown>, name as string, value);
    frame.last = name;
  }

  private add(path: string, value: unknown): PatchOperation | null {
    if (!this.recordOps) return null;
    const op: PatchOperation = { op: 'add', path, value };
    this.ops.push(op);
    this.lastPath = path;
    return op;
  }

  /** Text added to the string at `path`; its path is left out when the last operation named it too. */
  private append(path: string, text: string): void {
    if (!this.recordOps) return;
    this.ops.push(path === this.lastPath ? { op: 'append', value: text } : { op: 'append', path, value: text });
    this.lastPath = path;
  }

  /** Shows the string the scanner is reading, up to where its text is certain. */
  private showGrowing(s: Scanner): void {
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined || parent.dst === null) return; // a root string is shown whole: it may turn out a name
    let growing = this.growing;
    if (growing === null || growing.start !== s.strStart) {
      if (s.strStart === this.heldString) return;
      this.growing = null;
      const key = parent.isArray ? undefined : s.stack[s.stack.length - 1]!.key;
      const schema = this.memberSchema(parent, key, parent.count);
      if (schema === HIDDEN || (this.schema !== null && !this.schema.growsAsString(schema))) {
        this.heldString = s.strStart;
        return;
      }
      const name: string | number | undefined = parent.isArray ? (parent.dst as unknown[]).length : key;
      if (name === undefined || (!parent.isArray && Object.hasOwn(parent.dst, name))) {
        this.heldString = s.strStart;
        return;
      }
      const pointer = pointerOf(parent.pointer, name);
      growing = this.growing = { frame: parent, key: name, pointer, start: s.strStart, partsShown: 0 };
      this.set(parent, name, '');
      if (parent.shownIn !== this.push) {
        // The text below is this push's too: it goes in the same operation.
        this.appendGrowing(s, growing, this.add(pointer, ''));
        return;
      }
    }
    this.appendGrowing(s, growing, null);
  }

  /**
   * Adds the parts read since the last push. A decoded `\n` that may yet read as a raw backslash
   * (scan-string.ts sawRawBackslash) and everything after it wait until the string ends.
   */
  private appendGrowing(s: Scanner, growing: GrowingString, addOp: PatchOperation | null): void {
    const parts = s.strParts;
    const certain = s.strRawCandidates.length > 0 ? s.strRawCandidates[0]! : parts.length;
    if (certain <= growing.partsShown) return;
    let text = '';
    for (let k = growing.partsShown; k < certain; k++) text += parts[k]!;
    growing.partsShown = certain;
    if (text.length === 0) return;
    const dst = growing.frame.dst as Record<string | number, unknown>;
    this.set(growing.frame, growing.key, (dst[growing.key] as string) + text);
    if (addOp !== null) addOp.value = text;
    else if (growing.frame.shownIn !== this.push) this.append(growing.pointer, text);
  }
}

/**
 * The container of `frames[d]` as it stands now, sharing every member that can no longer change:
 * only the containers still open below it are copied (their member lists, not their members).
 */
function snapshot(frames: readonly PreviewFrame[], d: number): Container {
  const frame = frames[d]!;
  const dst = frame.dst!;
  // Spread defines own data properties, so a `__proto__` member stays a member.
  const copy: Container = frame.isArray ? (dst as unknown[]).slice() : { ...dst };
  const child = frames[d + 1];
  if (child !== undefined && child.dst !== null && frame.last !== null) {
    if (frame.isArray) (copy as unknown[])[frame.last as number] = snapshot(frames, d + 1);
    else setMember(copy as Record<string, unknown>, frame.last as string, snapshot(frames, d + 1));
  }
  return copy;
}

/** The JSON Pointer of member `key` of the container at `parent`. */
function pointerOf(parent: string, key: string | number): string {
  return parent + '/' + (typeof key === 'number' ? key : escapeToken(key));
}

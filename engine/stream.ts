// Streaming repair: the batch scanner driven one chunk at a time. Each push costs its chunk (plus a
// short held-back tail), never the buffer, with the default options too: `buffered` is a string built
// by appending (V8 links the pieces and copies nothing until someone reads its characters; reading a
// state's `buffered` costs that state's buffer once, and only its reader pays it), the chunks are
// kept for the short tails a state needs, and `partial` is the tree the scanner already built.
import { DeadlineExceededError, withDeadline } from './deadline.js';
import { repair } from './repair.js';
import { failureResponse } from './response.js';
import { AFTER_ROOT, AFTER_VALUE, COLON, DONE, KEY, ROOT_START, THINK, TRAILING, VALUE } from './scanner/phases.js';
import { PieceList } from './scanner/piece-list.js';
import { Scanner } from './scanner/scanner.js';
import { compiledSchema } from './schema/index.js';
import { ProgressivePreview } from './preview/progressive.js';
import { SchemaView } from './preview/schema-view.js';
import type { PatchOperation, PreviewMode, RepairOptions, RepairResponse, StreamState } from './types.js';

export interface StreamOptions extends RepairOptions {
  /**
   * Echo the whole buffer in every state's `buffered` (the spec's shape; default true). Pushes cost
   * their chunk either way; off, the state has no `buffered` field (nothing for a serializer to copy).
   * With patch previews the default is false: their point is an answer that costs its chunk.
   */
  echoBuffer?: boolean;
  /**
   * How states show the value so far (docs/streaming.md "Preview modes"): `complete` (default) the
   * reply's JSON once it is whole; `progressive` a value that grows with every push; `patch` the
   * progressive value's changes as JSON Patch operations.
   */
  preview?: PreviewMode;
  /**
   * A time limit for each push and for finalize, in ms (engine/deadline.ts). A push past it throws
   * DeadlineExceededError (code WORK_DEADLINE_EXCEEDED) and the stream is done: every later call
   * throws it too, since the scanner stopped part-way through the chunk. Finalize past it answers
   * WORK_DEADLINE_EXCEEDED. Undefined: no limit.
   */
  callBudgetMs?: number;
}

export interface RepairStream {
  push(chunk: string): StreamState;
  finalize(): RepairResponse;
  /** UTF-16 length of everything pushed so far. */
  readonly length: number;
}

/** Longest `incomplete_token` reported for an unfinished string, comment or long token (its tail). */
const TOKEN_ECHO_MAX = 256;

class Stream implements RepairStream {
  private readonly scanner = new Scanner();
  /** Everything pushed (piece-list.ts joins tiny pieces now and then, so 5 MB in 1-character pushes holds ~5 MB). */
  private readonly chunks = new PieceList();
  /** Everything pushed, appended and never read here: flattening it per push is what made streams quadratic. */
  private whole = '';
  private total = 0;
  /** Input offset of the first character that is not a blank; -1 while there is none. */
  private firstNonBlank = -1;
  private finalized = false;
  /** Set when a push passed its deadline: the scanner stopped part-way, so the stream is done. */
  private stopped: DeadlineExceededError | null = null;
  /** The options of the repairs a preview makes (answer()). */
  private readonly previewOptions: RepairOptions;
  private readonly echo: boolean;
  private readonly preview: ProgressivePreview | null = null;
  /** The batch answer for the buffer as it was when last asked (answer()). */
  private aligned: { total: number; response: RepairResponse } | null = null;
  /** Patch mode: the value of JSON on a line of prose last sent whole (the scanner's preview shows none of it). */
  private proseSent: unknown = null;

  constructor(private readonly options: StreamOptions) {
    const mode = options.preview ?? 'complete';
    this.previewOptions = { schema: options.schema, mode: options.mode };
    this.echo = options.echoBuffer ?? mode !== 'patch';
    if (mode !== 'complete') {
      this.preview = new ProgressivePreview(mode === 'patch', schemaView(options));
      this.scanner.sink = this.preview;
    }
  }

  get length(): number {
    return this.total;
  }

  push(chunk: string): StreamState {
    if (this.finalized) throw new Error('push after finalize');
    if (typeof chunk !== 'string') throw new TypeError('chunk must be a string');
    if (this.stopped !== null) throw this.stopped;
    const budget = this.options.callBudgetMs;
    if (budget === undefined) return this.take(chunk);
    try {
      return withDeadline(Date.now() + budget, () => this.take(chunk));
    } catch (error) {
      if (error instanceof DeadlineExceededError) this.stopped = new DeadlineExceededError(budget);
      throw this.stopped ?? error;
    }
  }

  private take(chunk: string): StreamState {
    if (chunk.length > 0) {
      if (this.firstNonBlank < 0) this.firstNonBlank = firstNonBlankIn(chunk, this.total);
      this.total += chunk.length;
      const joined = this.chunks.push(chunk);
      // Each link of the appended `whole` costs as a piece does: it is replaced by the joined text.
      if (this.echo) this.whole = joined ?? this.whole + chunk;
      if (this.preview === null) this.scanner.feed(chunk, false);
      else {
        this.preview.begin();
        this.scanner.feed(chunk, false);
        this.preview.end(this.scanner);
      }
    } else this.preview?.begin();
    return this.state();
  }

  finalize(): RepairResponse {
    if (this.finalized) throw new Error('finalize called twice');
    this.finalized = true;
    // The whole buffer, once, through `repair`: finalize answers exactly what a batch request would,
    // including the decisions only the end of the input allows (a string cut before its delimiter).
    const text = this.echo ? this.whole : this.chunks.join();
    this.chunks.clear();
    this.whole = '';
    if (this.stopped !== null) return failureResponse([this.stopped.toRepairError()]);
    return repair(text, this.callOptions());
  }

  /** The options of a repair() call this stream makes: its call budget as that call's deadline. */
  private callOptions(): RepairOptions {
    const budget = this.options.callBudgetMs;
    return budget === undefined ? this.options : { ...this.options, deadline: Date.now() + budget };
  }

  private state(): StreamState {
    const s = this.scanner;
    // A long held token is echoed as its tail and is not judged by JSON.parse: reading it whole
    // on every push is what made long tokens quadratic (the scanner keeps its pieces aside).
    const heldLength = s.text.length - s.i + s.asideLength;
    const long = !s.inString && (s.comment !== 0 || heldLength > TOKEN_ECHO_MAX);
    const held = long ? '' : s.text.slice(s.i);
    const heldToken = s.comment !== 0 ? this.tokenTail(s.commentStart)
      : long ? this.tokenTail(s.base + s.i) : held.trimStart();
    const depth = s.stack.length;
    // The scanner holds a closing quote back until what follows shows it ends the string (inner
    // quotes: scan-string.ts); where the buffer ends, the string has ended all the same.
    const afterQuote = s.inString && held.charCodeAt(0) === s.strClose ? held.slice(1).trimStart() : null;
    const inString = s.inString && afterQuote === null;
    const complete = afterQuote !== null
      ? depth === 0 && afterQuote.length === 0
      : s.roots.length > 0 && depth === 0 && !s.inString && heldToken.length === 0 &&
        (s.phase === AFTER_ROOT || s.phase === TRAILING || s.phase === DONE);
    let parseable = false;
    let safe = false;
    let partial: unknown = null;
    const root = s.roots[0];
    if (s.roots.length === 1 && depth === 0 && !s.inString && !s.tooDeep && s.rootCommaPos < 0 &&
      (s.phase === TRAILING || (s.phase === AFTER_ROOT && root !== null && typeof root === 'object')) && s.log.strippedOnly()) {
      // The reply's JSON is whole: judged as finalize reads the reply (docs/streaming.md "Preview
      // modes"), without the fence and the prose around it. Text held after a closed container (the
      // start of a closing fence, a sentence) cannot change it; a scalar is whole once the text
      // after it is known not to be JSON (a closing fence, prose).
      parseable = true;
      safe = !s.log.doubted();
      partial = root;
    } else if (s.log.size === 0 && !s.tooDeep) {
      // A scalar root still held back (`12`, `true`, `"text"` with its closing quote in doubt):
      // JSON.parse is the judge, of the held token alone, and only when nothing but blanks came
      // before it (prose before a held word would make every push reread the buffer). A root string
      // still open cannot parse, so a long one streamed in many pushes is never reread.
      const scalar = afterQuote !== null ? this.firstNonBlank === s.strStart
        : !s.inString && !long && heldToken.length > 0 && this.firstNonBlank >= s.base + s.i;
      if (s.roots.length === 0 && depth === 0 && scalar) {
        try {
          partial = JSON.parse(afterQuote !== null ? this.buffered() : heldToken);
          parseable = safe = true;
        } catch {
          partial = null;
        }
      }
    }
    const schema = this.options.schema !== undefined && this.options.schema !== null;
    let fromProse: unknown = null;
    if (schema && (complete || parseable)) {
      // With a schema the preview is finalize's answer: its value, parseable only when that answer
      // is a success, safe to emit only when every repair in it was (a `"249.99"` the schema turns
      // into a number is a change finalize reports, not a value to emit as read).
      const answer = this.answer();
      partial = answer.success ? answer.repaired : null;
      parseable = parseable && answer.success;
      safe = safe && answer.success && certain(answer);
    } else if (s.roots.length === 0 && depth === 0 && !s.inString && s.report.skippedFragment) {
      // JSON on a line of prose (`Sure: {"a": 1} Hope that helps.`): the first reading took it
      // for prose and finalize reads the reply again (reply-shape.ts); the preview shows what
      // finalize would answer.
      const answer = this.answer();
      if (answer.success && answer.repaired !== null && typeof answer.repaired === 'object' && !leftOpen(answer)) {
        partial = fromProse = answer.repaired;
        parseable = true;
        safe = certain(answer);
      }
    }
    const preview = this.preview;
    const state: StreamState = {
      structurally_complete: complete,
      json_parseable: parseable,
      safe_to_emit: safe,
      // undefined: the key is left out of the serialized state (not required by its serializer).
      // A progressive preview the scanner has not started (JSON on a line of prose) shows finalize's value.
      partial: preview === null ? partial : this.options.preview === 'patch' ? undefined : preview.root ?? fromProse,
      buffered: this.echo ? this.buffered() : undefined,
      incomplete_token: afterQuote !== null ? '' : s.inString ? this.tokenTail(s.strStart) : heldToken,
      brace_depth: depth,
      in_string: inString,
      expected_next: afterQuote !== null ? closedStringHints(s, afterQuote)
        : heldToken.length > 0 && !s.inString ? tokenHints(s) : expectedNext(s),
    };
    if (preview !== null) {
      if (this.options.preview === 'patch') state.partial_patch = this.patchOps(preview.ops, preview.root, fromProse);
      state.settled = preview.settled;
    }
    return state;
  }

  /**
   * The push's patch: the scanner's preview's operations, and JSON on a line of prose (shown in
   * progressive mode as finalize's value) sent whole as the document while the scanner's preview
   * has none — again whenever it is read anew (answer() rereads as the buffer doubles).
   */
  private patchOps(ops: PatchOperation[], root: unknown, fromProse: unknown): PatchOperation[] {
    if (fromProse === null || (root !== null && root !== undefined) || fromProse === this.proseSent) return ops;
    const op = this.proseSent === null ? 'add' : 'replace';
    this.proseSent = fromProse;
    return ops.concat({ op, path: '', value: fromProse });
  }

  /**
   * What finalize would answer for the buffer now. Computed when first asked, then again only once
   * the buffer has doubled since: text after a complete value rarely changes the answer, and
   * reading the buffer again on every push after it would make a long tail quadratic (the sum of
   * the reads stays under twice the buffer).
   */
  private answer(): RepairResponse {
    if (this.aligned === null || this.total >= 2 * this.aligned.total) {
      // Within the push's own deadline (withDeadline): no deadline of its own.
      this.aligned = { total: this.total, response: repair(this.buffered(), this.previewOptions) };
    }
    return this.aligned.response;
  }

  private buffered(): string {
    return this.echo ? this.whole : this.chunks.join();
  }

  /** The unfinished token as sent, from input offset `start` (its last TOKEN_ECHO_MAX characters). */
  private tokenTail(start: number): string {
    const from = Math.max(start, this.total - TOKEN_ECHO_MAX);
    let need = this.total - from;
    let out = '';
    const pieces = this.chunks.pieces;
    for (let k = pieces.length - 1; k >= 0 && need > 0; k--) {
      const c = pieces[k]!;
      out = (c.length <= need ? c : c.slice(c.length - need)) + out;
      need -= c.length;
    }
    return out;
  }
}

/**
 * Whether the answer closed a value the buffer leaves open (`Log: [12:00] [1`): the buffer is a
 * prefix, and what it cut (a number, a string) may go on, so it is not shown yet.
 */
function leftOpen(answer: RepairResponse): boolean {
  return answer.metadata.syntax_repairs.some((d) => d.type === 'closed_array_bracket' || d.type === 'closed_object_bracket' || d.type === 'closed_string');
}

/** Whether an answer took no liberty: every repair in it was certain (`high` overall). */
function certain(answer: RepairResponse): boolean {
  return answer.metadata.confidence !== 'medium' && answer.metadata.confidence !== 'low' && answer.metadata.repairs_applied.every((d) => d.safe);
}

/** Input offset of the first non-blank character of a chunk starting at `offset`, or -1. */
function firstNonBlankIn(chunk: string, offset: number): number {
  for (let k = 0; k < chunk.length; k++) if (chunk.charCodeAt(k) > 0x20) return offset + k;
  return -1;
}

/** A number or literal is held back: it may go on, or be followed by what ends a value. */
function tokenHints(s: Scanner): string[] {
  const top = s.stack[s.stack.length - 1];
  if (top === undefined) return ['token_continuation', 'end'];
  return ['token_continuation', ',', top.isArray ? ']' : '}'];
}

/** A string whose closing quote is held back; `after` is what follows the quote, trimmed. */
function closedStringHints(s: Scanner, after: string): string[] {
  const top = s.stack[s.stack.length - 1];
  if (after.charCodeAt(0) === 0x2c) return top === undefined || top.isArray ? ['value'] : ['key']; // ,
  if (after.charCodeAt(0) === 0x3a) return ['value']; // :
  if (s.strIsKey) return [':'];
  if (top === undefined) return ['end'];
  return top.isArray ? [',', ']'] : [',', '}'];
}

function expectedNext(s: Scanner): string[] {
  if (s.inString) return s.strIsKey ? ['string', 'end_of_key'] : ['string', 'end_of_string'];
  const top = s.stack[s.stack.length - 1];
  switch (s.phase) {
    case ROOT_START:
    case THINK:
      return ['{', '['];
    case VALUE:
      return top?.isArray === true && !s.afterComma ? ['value', ']'] : ['value'];
    case KEY:
      return s.afterComma ? ['key'] : ['key', '}'];
    case COLON:
      return [':'];
    case AFTER_VALUE:
      return top?.isArray === true ? [',', ']'] : [',', '}'];
    default:
      return ['end'];
  }
}

/** The schema's view for a typed preview; null without a schema or with one that does not compile (finalize reports it). */
function schemaView(options: StreamOptions): SchemaView | null {
  if (options.schema === undefined || options.schema === null) return null;
  const compiled = compiledSchema(options.schema);
  return compiled.ok ? new SchemaView(compiled.model, options.mode === 'lenient' ? 'lenient' : 'strict') : null;
}

// What a stream holds beyond its text, measured with Node 20 (heap after a full GC): the parser's
// value (an object or array ~64 bytes, a member slot 8-12, a string ~16) and, with a progressive or
// patch preview, a second tree of about the same.
const BYTES_PER_CONTAINER = 64;
const BYTES_PER_MEMBER = 12;
const BYTES_PER_STRING = 16;

/**
 * An upper estimate of the heap a stream keeps for `chunk` beyond the chunk's own text (bytes), for
 * a caller that bounds the memory of many streams (the server's STREAM_BUFFER_BUDGET_BYTES): a text
 * of empty objects (`[{},{},…`) holds 23 bytes per character, 45 with a preview, where its length
 * says 1. One pass over the chunk; counts structure, whatever the parser later makes of it.
 */
export function treeBytesEstimate(chunk: string, preview: PreviewMode = 'complete'): number {
  let containers = 0;
  let members = 0;
  let quotes = 0;
  for (let i = 0; i < chunk.length; i++) {
    switch (chunk.charCodeAt(i)) {
      case 0x7b: case 0x5b: containers++; break; // { [
      case 0x2c: members++; break; // ,
      case 0x22: case 0x27: quotes++; break; // " '
    }
  }
  const tree = containers * BYTES_PER_CONTAINER + members * BYTES_PER_MEMBER + (quotes >>> 1) * BYTES_PER_STRING;
  return preview === 'complete' ? tree : 2 * tree;
}

export function createStream(options: StreamOptions = {}): RepairStream {
  return new Stream(options);
}

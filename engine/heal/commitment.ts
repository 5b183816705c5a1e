// What a streaming healer may send before the model has finished: the text it commits to. Both the
// streaming healer (every push) and healJson (once, over the whole text) compute it the same way,
// so both end with the same answer (heal-json.ts settle): the whole-text repair when its canonical
// text starts with what was committed, and otherwise the committed text itself, closed.
//
// Rules (engine README "Healing"):
// - Only a reply that opens with `{` or `[` (whitespace before it aside) is committed as it goes:
//   prose, a fence or a bare value first leave the reading to the whole-text repair.
// - Without a schema, the canonical text of the value as the scanner builds it (canonical-writer.ts).
// - With a schema, the repair may still fail (a member of the wrong type, a required one missing,
//   anywhere later), and then the client gets the model's text untouched: so only what is at once
//   that canonical text and the model's own text is committed — for a model that writes compact
//   JSON, everything as it arrives; for one that writes spaces, up to the first one.
import { Scanner } from '../scanner/scanner.js';
import { compiledSchema } from '../schema/index.js';
import { SchemaView } from '../preview/schema-view.js';
import { CanonicalWriter } from './canonical-writer.js';
import { stringEnd } from './json-text.js';

/** Where the reply stands on the opening gate. */
const GATE_WAITING = 0; // only whitespace so far
const GATE_OPEN = 1; // opened with `{` or `[`
const GATE_SHUT = 2; // opened otherwise: nothing is committed before the end

export class Commitment {
  private readonly scanner = new Scanner();
  private readonly writer: CanonicalWriter;
  private gate = GATE_WAITING;
  /** Everything committed so far. */
  committed = '';
  /** With a schema: canonical text written but not yet matched against the model's text. */
  private pending = '';
  /** With a schema: the model's text not yet matched, as pieces from rawHead on (offset rawAt in the first). */
  private rawPieces: string[] = [];
  private rawHead = 0;
  private rawAt = 0;
  private readonly rawPrefixOnly: boolean;

  constructor(schema: object | undefined) {
    this.rawPrefixOnly = schema !== undefined;
    this.writer = new CanonicalWriter(this.scanner, schemaView(schema));
    this.scanner.sink = this.writer;
  }

  /** Reads the next piece of the model's text; returns the text newly committed. */
  push(piece: string): string {
    if (piece.length === 0) return '';
    if (this.gate === GATE_WAITING) this.gate = openingGate(piece, this.rawPrefixOnly);
    if (this.gate !== GATE_OPEN) return '';
    // Once the writer has stopped, nothing more is read: the whole-text repair reads the rest.
    let written = '';
    if (!this.writer.stopped) {
      this.scanner.feed(piece, false);
      this.writer.grow();
      written = this.writer.take();
    }
    const fresh = this.rawPrefixOnly ? this.matchRaw(piece, written) : written;
    this.committed += fresh;
    return fresh;
  }

  /**
   * Reads a whole reply (healJson): the same commitment as one push, but with a schema the text is
   * read in pieces that double in size, and reading stops once the writer has stopped — once the
   * model's text has departed from the canonical text nothing more can be committed, so the rest
   * (most of a broken reply) is left to the whole-text repair instead of being scanned twice.
   * Chunking does not change a commitment (the streaming healer's pushes are any size), so this
   * commits exactly what one push would.
   */
  read(text: string): void {
    if (!this.rawPrefixOnly) {
      this.push(text);
      return;
    }
    for (let at = 0, size = 64; at < text.length && !this.settled(); at += size, size *= 2) {
      this.push(text.slice(at, at + size));
    }
  }

  /**
   * What closes the committed text into a whole value. Without a schema it is the writer's: whole
   * members and brackets, and perhaps a string that was growing, so only that string's quote and
   * brackets are missing.
   */
  closer(): string {
    const open: number[] = [];
    const text = this.committed;
    let quote = '';
    for (let k = 0; k < text.length; k++) {
      switch (text.charCodeAt(k)) {
        case 0x22: // " (a string: skipped whole; one still growing is closed first)
          k = stringEnd(text, k);
          if (k >= text.length) quote = '"';
          break;
        case 0x7b: open.push(0x7d); break; // { closes with }
        case 0x5b: open.push(0x5d); break; // [ closes with ]
        case 0x7d: case 0x5d: open.pop(); break; // } ]
      }
    }
    let closers = quote;
    for (let d = open.length - 1; d >= 0; d--) closers += String.fromCharCode(open[d]!);
    return closers;
  }

  /** With a schema: nothing more can be committed (the writer stopped and all it wrote is matched or refused). */
  private settled(): boolean {
    return this.writer.stopped && this.pending.length === 0;
  }

  /** The part of the canonical text that is also the model's own text, from where the match stands. */
  private matchRaw(piece: string, written: string): string {
    if (written.length === 0 && this.settled()) return '';
    this.rawPieces.push(piece);
    const canon = this.pending + written;
    let k = 0;
    while (k < canon.length && this.rawHead < this.rawPieces.length) {
      const raw = this.rawPieces[this.rawHead]!;
      if (this.rawAt >= raw.length) {
        this.rawHead++;
        this.rawAt = 0;
        continue;
      }
      if (raw.charCodeAt(this.rawAt) !== canon.charCodeAt(k)) {
        // The model's text departs from the canonical text here: nothing more is committed.
        this.writer.stop();
        this.pending = '';
        this.rawPieces = [];
        this.rawHead = 0;
        return canon.slice(0, k);
      }
      this.rawAt++;
      k++;
    }
    if (this.rawHead > 64 && this.rawHead * 2 > this.rawPieces.length) {
      // Matched pieces are dropped in bulk, so the list costs its unmatched part.
      this.rawPieces = this.rawPieces.slice(this.rawHead);
      this.rawHead = 0;
    }
    this.pending = canon.slice(k);
    return canon.slice(0, k);
  }
}

/**
 * The gate for the reply's first piece with a character above space: open when it is `{` or `[`
 * (with a schema, only as the reply's first character: the canonical text has no whitespace).
 */
function openingGate(piece: string, rawPrefixOnly: boolean): number {
  for (let k = 0; k < piece.length; k++) {
    const c = piece.charCodeAt(k);
    if (c <= 0x20) { // whitespace (and controls) before the JSON
      if (rawPrefixOnly) return GATE_SHUT;
      continue;
    }
    return c === 0x7b || c === 0x5b ? GATE_OPEN : GATE_SHUT; // { [
  }
  return GATE_WAITING;
}

/** The schema's member-by-member view (null without a schema, or with one that does not compile: the repair reports it). */
function schemaView(schema: object | undefined): SchemaView | null {
  if (schema === undefined) return null;
  const compiled = compiledSchema(schema);
  return compiled.ok ? new SchemaView(compiled.model, 'strict') : null;
}

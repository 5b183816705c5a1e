// Text that arrives in pieces (a stream's chunks, a long token's pieces waiting aside), kept as a
// list: appending copies nothing, and joining happens when the text is read. Each kept piece costs
// tens of bytes of its own, so once the pieces average fewer than JOIN_AT characters the list is
// joined into one: a join comes after length/JOIN_AT pieces, so joins cost O(total) over a session
// and the list's memory stays proportional to its characters.
const JOIN_AT = 64;

export class PieceList {
  readonly pieces: string[] = [];
  /** The characters held. */
  length = 0;

  /** Adds `piece`; returns the whole text when this push joined the pieces into one, else null. */
  push(piece: string): string | null {
    const pieces = this.pieces;
    pieces.push(piece);
    this.length += piece.length;
    if (pieces.length <= JOIN_AT || pieces.length * JOIN_AT < this.length) return null;
    const flat = pieces.join('');
    pieces.length = 0;
    pieces.push(flat);
    return flat;
  }

  /** The last piece ('' when empty). */
  last(): string {
    return this.pieces.length > 0 ? this.pieces[this.pieces.length - 1]! : '';
  }

  join(): string {
    return this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
  }

  clear(): void {
    if (this.pieces.length > 0) this.pieces.length = 0;
    this.length = 0;
  }
}

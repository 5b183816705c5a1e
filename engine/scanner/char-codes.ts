// Character classes of the scanner. Code points are written as numbers with the character named
// beside them (acorn and jsonrepair do the same): a switch on numbers is what V8 compiles best.

/** JSON's own whitespace: space, tab, line feed, carriage return. */
export function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/** Whitespace JSON does not allow but models emit: no-break space, the U+2000 block, BOM, etc. */
export function isOtherWhitespace(c: number): boolean {
  return (
    c === 0xa0 || // no-break space
    (c >= 0x2000 && c <= 0x200b) || // en quad .. zero-width space
    c === 0x202f || // narrow no-break space
    c === 0x205f || // medium mathematical space
    c === 0x3000 || // ideographic space
    c === 0x180e || // Mongolian vowel separator
    c === 0xfeff || // byte order mark
    c === 0x0b || // vertical tab
    c === 0x0c // form feed
  );
}

/** ASCII letter. */
export function isAsciiLetter(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

/** The first index from k that is not a space or a tab (text.length when none). */
export function skipBlanks(text: string, k: number): number {
  while (k < text.length && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k++;
  return k;
}

/**
 * `<!--` at i: 1; 0 when not; -1 when the window ends inside what may still become it (more input
 * is needed; `final`: it did not).
 */
export function htmlCommentAt(text: string, i: number, final: boolean): number {
  if (text.startsWith('<!--', i)) return 1;
  return i + 4 > text.length && !final && '<!--'.startsWith(text.slice(i)) ? -1 : 0;
}

/** ASCII letter, digit or `_`. */
export function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || isAsciiLetter(c) || c === 0x5f;
}

/** `,` `}` `]` or a line end: what may follow an unquoted value, or a quoted one that prose ran into. */
export function endsBareValue(c: number): boolean {
  return c === 0x2c || c === 0x7d || c === 0x5d || c === 0x0a || c === 0x0d; // , } ] LF CR
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39; // 0..9
}

/** Characters that end a bare token (number, literal, unquoted word) in any position. */
export function endsWord(c: number): boolean {
  switch (c) {
    case 0x20: case 0x0a: case 0x09: case 0x0d: // whitespace
    case 0x2c: // ,
    case 0x3a: // :
    case 0x7b: // {
    case 0x7d: // }
    case 0x5b: // [
    case 0x5d: // ]
    case 0x22: // "
    case 0x27: // '
    case 0x28: // (
    case 0x29: // )
    case 0x2f: // /
    case 0x3b: // ;
    case 0x23: // #
      return true;
    default:
      return isOtherWhitespace(c) || c === 0x201c || c === 0x201d || c === 0x2018 || c === 0x2019;
  }
}

/** After a candidate closing quote: the next significant character says the string really ended. */
export function endsStringBefore(c: number): boolean {
  switch (c) {
    case 0x2c: // ,
    case 0x3a: // :
    case 0x7d: // }
    case 0x5d: // ]
    case 0x7b: // {
    case 0x5b: // [
    case 0x22: // "
    case 0x27: // '
    case 0x2f: // / (a comment follows)
    case 0x23: // # (a comment follows)
    case 0x2b: // + (concatenation follows)
    case 0x60: // ` (closing fence)
    case 0x201c: case 0x201d: case 0x2018: case 0x2019: // typographic quotes
      return true;
    default:
      return isDigit(c) || c === 0x2d; // a number follows: missing comma
  }
}

/** The code that closes a string opened by `open`, and a second one accepted as well (or -1). */
export function closingQuote(open: number): number {
  switch (open) {
    case 0x201c: return 0x201d; // “ closes with ”
    case 0x2018: return 0x2019; // ‘ closes with ’
    case 0x60: return 0xb4; // ` closes with ´ as well as with itself (both count: scan-string.ts)
    default: return open; // " and ' close with themselves
  }
}

export function isQuote(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x201c || c === 0x201d || c === 0x2018 || c === 0x2019;
}

/** The value of the four hex digits at text[i, i + 4) (a `\u` escape's), negative when they are not four hex digits. */
export function hex4At(text: string, i: number): number {
  return (hexValue(text.charCodeAt(i)) << 12) | (hexValue(text.charCodeAt(i + 1)) << 8) |
    (hexValue(text.charCodeAt(i + 2)) << 4) | hexValue(text.charCodeAt(i + 3));
}

export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30; // 0..9
  if (c >= 0x61 && c <= 0x66) return c - 0x57; // a..f
  if (c >= 0x41 && c <= 0x46) return c - 0x37; // A..F
  return -1;
}

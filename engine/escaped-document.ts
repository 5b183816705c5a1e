// A whole document escaped once more (`{\"name\": \"Ada\"}`): what a log line, a double
// JSON.stringify or a tool argument copied out of its string leaves. Read as it stands, every `\"`
// would be taken apart into junk keys at high confidence; unescaped once, it is ordinary JSON.
// Detected only when the first bracket's first member or element starts with `\"`, so text whose
// strings merely contain escaped quotes is never touched. The input is decoded in one pass, with
// the places where it shrank kept so repair positions can be mapped back to the input.

export interface UnescapedDocument {
  text: string;
  /** Input offset of the first `\"`, where the repair is reported. */
  position: number;
  /** Pairs (offset in `text`, input offset minus that offset), ascending, for mapPosition. */
  shifts: number[];
}

/** The document unescaped once, or null when the text is not an escaped document. */
export function unescapeDocument(text: string): UnescapedDocument | null {
  const first = escapedQuoteAfterBracket(text);
  if (first < 0) return null;
  const parts: string[] = [];
  const shifts: number[] = [];
  let run = 0;
  let outLength = 0;
  let i = text.indexOf('\\', 0);
  while (i >= 0 && i + 1 < text.length) {
    const decoded = decodeEscape(text, i);
    if (decoded === null) {
      i = text.indexOf('\\', i + 1);
      continue;
    }
    parts.push(text.slice(run, i), decoded.char);
    outLength += i - run + decoded.char.length;
    run = i + decoded.width;
    shifts.push(outLength, run - outLength);
    i = text.indexOf('\\', run);
  }
  parts.push(text.slice(run));
  return { text: parts.join(''), position: first, shifts };
}

/** The input offset of an offset in the unescaped text. */
export function mapPosition(doc: UnescapedDocument, position: number): number {
  const shifts = doc.shifts;
  // The last pair whose offset is at or before `position` (binary search over the even slots).
  let lo = 0;
  let hi = shifts.length / 2 - 1;
  let shift = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (shifts[mid * 2]! <= position) {
      shift = shifts[mid * 2 + 1]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return position + shift;
}

const BRACKET_OR_QUOTE = /[{["]/;

/** Offset of `\"` when it is the first thing after the first `{` or `[` (blanks and `\n` aside), else -1. */
function escapedQuoteAfterBracket(text: string): number {
  // The first `{`, `[` or `"` in one native search: a reply's leading prose is most of what is
  // passed over, and a loop of charCodeAt over it cost 2% of a 1 KB reply's repair.
  let i = text.search(BRACKET_OR_QUOTE);
  if (i < 0 || text.charCodeAt(i) === 0x22) return -1; // " — a real quote comes first: not escaped as a whole
  const len = text.length;
  i++;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { // whitespace
      i++;
    } else if (c === 0x5c) { // \ (backslash)
      const next = text.charCodeAt(i + 1);
      if (next === 0x22) return i; // \"
      if (next === 0x6e || next === 0x72 || next === 0x74) i += 2; // \n \r \t: escaped layout
      else return -1;
    } else if (c === 0x7b || c === 0x5b) { // a nested { [ first
      i++;
    } else return -1;
  }
  return -1;
}

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** One JSON string escape at i (a backslash), or null when it is none (kept as it stands). */
function decodeEscape(text: string, i: number): { char: string; width: number } | null {
  const e = text[i + 1]!;
  const simple = SIMPLE[e];
  if (simple !== undefined) return { char: simple, width: 2 };
  if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
    return { char: String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), width: 6 };
  }
  return null;
}

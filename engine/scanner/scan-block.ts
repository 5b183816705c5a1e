// A block of text used as a value: Python's `"""…"""` (or `'''…'''`) and a markdown code block (```` ```python …
// ``` ````) where a member's value goes. Models write code and long text this way; a reader takes the
// block as one string: the language tag is a label, not content, and the indentation every line
// shares is the block's, not the text's (Python's textwrap.dedent). Nothing else is dropped.
import { HOLD_BLOCK_QUOTE, HOLD_BLOCK_TICK } from './phases.js';
import type { Scanner } from './scanner.js';

/**
 * Length of the `"""` or ``` run opening a block at window index i (0 when none). A run cut by the
 * window's end is not waited for: a stream's states read it as the strings it starts as, and its
 * finalize reads the whole reply as batch does.
 */
export function blockOpenerAt(s: Scanner, i: number, quote: number): number {
  const text = s.text;
  let j = i;
  while (j < text.length && text.charCodeAt(j) === quote) j++;
  const run = j - i;
  if (quote === 0x60) return run >= 3 ? run : 0;
  // `"""` opens a block, `""""""` is an empty one; four or five quotes are stray quotes around an
  // empty string (`{"key": """"}`), read as strings are.
  return run === 3 || run >= 6 ? 3 : 0;
}

export const NOT_A_BLOCK = 2;

/**
 * Reads the block whose opener (`run` times `quote`) starts at window index i and emits its text.
 * False when the closer has not arrived yet (a stream's next piece may bring it): the block is
 * held and the search resumes where it stopped, so a long block streamed in pieces is read once.
 * `closerRequired`: with no closer by the end of the input the opener was no block (NOT_A_BLOCK).
 */
export function scanBlock(s: Scanner, i: number, quote: number, run: number, closerRequired: boolean): boolean | typeof NOT_A_BLOCK {
  const text = s.text;
  const delimiter = String.fromCharCode(quote).repeat(3);
  const bodyAt = i + run;
  const from = s.blockSearch >= 0 ? Math.max(bodyAt, s.blockSearch - s.base) : bodyAt;
  let close = text.indexOf(delimiter, from);
  if (close < 0 && !s.final) {
    s.blockSearch = s.base + Math.max(bodyAt, text.length - 2);
    s.i = i;
    // A long block waits aside for a piece that holds its delimiter (scanner.ts feed): it is not copied per piece.
    s.heldKind = quote === 0x60 ? HOLD_BLOCK_TICK : HOLD_BLOCK_QUOTE;
    return false;
  }
  s.blockSearch = -1;
  if (close < 0 && closerRequired) return NOT_A_BLOCK;
  let end: number;
  if (close < 0) {
    // repair: the reply ended inside the block (a token limit): its text up to the end is the value
    s.log.doubt('closed_string', s.at(text.length), 'medium');
    close = text.length;
    end = text.length;
  } else {
    end = close;
    while (end < text.length && text.charCodeAt(end) === quote) end++;
    // A closer longer than three (`""""` after `"a "quoted" word"`) ends with its last three.
    close = end - 3 < bodyAt ? close : end - 3;
  }
  const body = text.slice(bodyAt, close);
  const block = blockText(body, quote === 0x60);
  // repair: a triple-quoted string or a code block as a value becomes one JSON string; when a
  // language tag or shared indentation was taken off, that is a reading: medium
  if (block.trimmed) s.log.doubt('converted_multiline_string', s.at(i), 'medium');
  else s.record('converted_multiline_string', i);
  s.i = end;
  s.emit(block.text);
  s.lastWasString = true;
  return true;
}

const TAG = /^[\w+#.-]*[ \t]*$/;
/**
 * An info string of several words (`typescript main.ts`, `python title="x.py"`, `js copy`): a
 * language tag, then up to five file names, words or `key=value` attributes — no code punctuation.
 */
const INFO_STRING = /^[ \t]*[A-Za-z][\w+#.-]*(?:[ \t]+[\w+#.\/-]+(?:=(?:"[^"\n]*"|'[^'\n]*'|[\w.\/-]+))?){1,5}[ \t]*\r?$/;

/**
 * The text a reader takes from a block's body: for a code block, its first line when it is a
 * language tag (`python`) or an info string of several words (`typescript main.ts`); then the line
 * break after the opener, the blank line before the closer and the indentation all non-blank lines
 * share (a line of blanks, which a reader sees as empty, then is empty).
 */
export function blockText(body: string, code: boolean): { text: string; trimmed: boolean } {
  let text = body;
  let trimmed = false;
  const firstBreak = text.indexOf('\n');
  if (firstBreak >= 0) {
    const first = text.slice(0, firstBreak);
    if (code && first.trim().length > 0 && (TAG.test(first) || INFO_STRING.test(first))) {
      trimmed = true;
      text = text.slice(firstBreak + 1);
    } else if (first.trim().length === 0) {
      text = text.slice(firstBreak + 1);
    }
  }
  const lastBreak = text.lastIndexOf('\n');
  if (lastBreak >= 0 && text.slice(lastBreak + 1).trim().length === 0) text = text.slice(0, lastBreak);
  const lines = text.split('\n');
  let common: string | null = null;
  for (const line of lines) {
    if (line.trim().length === 0) continue;
    const indent = /^[ \t]*/.exec(line)![0];
    if (common === null) common = indent;
    else {
      let k = 0;
      while (k < common.length && k < indent.length && common.charCodeAt(k) === indent.charCodeAt(k)) k++;
      // Indented lines that share no prefix (`    a`, `⇥b`): tabs against spaces — a reader may see
      // a shared indentation this reading keeps, so the text kept as written is not certain
      if (k === 0 && indent.length > 0 && common.length > 0) trimmed = true;
      common = common.slice(0, k);
    }
    if (common.length === 0) break;
  }
  if (common !== null && common.length > 0) {
    trimmed = true;
    const n = common.length;
    // A whitespace-only line is blank to a reader, whatever its width: it stays an empty line.
    text = lines.map((line) => (line.trim().length === 0 ? '' : line.slice(n))).join('\n');
  }
  return { text, trimmed };
}

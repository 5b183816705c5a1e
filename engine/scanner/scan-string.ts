// Strings: double, single and typographic quotes; escapes; raw control characters; unescaped inner
// quotes; a missing closing quote. Runs between escapes are copied as one slice, never per character.
// A string may span many pieces of a stream: its text so far waits in `strParts`.
import { closingQuote, endsBareValue, endsStringBefore, hex4At, hexValue, htmlCommentAt, isAsciiLetter, isDigit, isJsonWhitespace, skipBlanks } from './char-codes.js';
import { AFTER_ROOT, AFTER_VALUE, COLON, SET_OPEN, SET_QUOTED, SET_READ } from './phases.js';
import { setToObject } from './python-set.js';
import type { Scanner } from './scanner.js';

export function startString(s: Scanner, open: number, isKey: boolean, i: number): void {
  if (open === 0x27) { // '
    // repair: single-quoted strings become double-quoted
    s.record('converted_single_quotes', i);
  } else if (open !== 0x22) { // not "
    // repair: typographic quotes “ ” ‘ ’ and backticks become straight double quotes
    s.record('converted_smart_quotes', i);
  }
  s.inString = true;
  s.strIsKey = isKey;
  s.strOpen = open;
  s.strClose = closingQuote(open);
  s.strStart = s.at(i);
  s.strRawSeen = false;
  s.strInvalidSeen = false;
  s.strQuoteSeen = false;
  s.strRawChosenAt = -1;
  if (s.strRawCandidates.length !== 0) s.strRawCandidates.length = 0; // (a slow runtime call: only when needed)
  s.i = i + 1;
  if (isKey) quotedFirstItem(s);
  else if (s.sink !== null) {
    s.showOpen(false);
    s.sink.stringStart();
  }
}

/** A quoted name opens a `{`'s first member: what follows it says whether the `{` opened a Python set (structure.ts). */
export function quotedFirstItem(s: Scanner): void {
  const top = s.stack[s.stack.length - 1];
  if (top !== undefined && top.set === SET_OPEN) top.set = SET_QUOTED;
}

/**
 * The string shows a backslash JSON has no escape for: the model left its backslashes unescaped, so
 * the `\b` `\f` `\n` `\r` `\t` escapes decoded earlier in it that read as raw ones (rawBackslash)
 * become text again.
 */
function sawRawBackslash(s: Scanner): void {
  if (s.strRawSeen) return;
  s.strRawSeen = true;
  const c = s.strRawCandidates;
  for (let k = 0; k < c.length; k += 3) {
    // repair: `\times … \cdot`: the earlier backslash before a letter was raw too; it is kept, escaped
    s.log.record('escaped_backslash', c[k + 1]!);
    s.strParts[c[k]!] = '\\' + String.fromCharCode(c[k + 2]!);
  }
  c.length = 0;
}

/**
 * A backslash at window index i that starts no JSON escape is kept as text (`escaped_backslash`,
 * at most medium when `chosen`: another reader would decode it); the string now shows raw backslashes.
 */
function keptBackslash(s: Scanner, i: number, chosen: boolean): void {
  if (chosen) s.log.doubt('escaped_backslash', s.at(i), 'medium');
  else s.record('escaped_backslash', i);
  s.strInvalidSeen = true;
  sawRawBackslash(s);
}

/** Scans string content from s.i. True when the string ended; false when more input is needed. */
export function scanString(s: Scanner): boolean {
  const text = s.text;
  const len = text.length;
  const codes = s.codeUnits();
  const close = s.strClose;
  const open = s.strOpen;
  let i = s.i;
  let run = i;
  if (!s.strIsKey && open === 0x22 && s.strParts.length === 0 && s.at(i) === s.strStart + 1 && i < len && (codes[i] === 0x7b || codes[i] === 0x5b)) { // " { [
    const end = embeddedJsonEnd(text, i, s.final);
    if (end === EMBEDDED_UNDECIDED) return hold(s, run, i);
    if (end > 0) {
      // repair: JSON written in a string without its quotes escaped (`"payload": "{"a": 1}"`, a
      // double-encoded tool argument) is the string's text, whole: a reading chosen, medium
      s.log.doubt('escaped_inner_quote', s.at(text.indexOf('"', i)), 'medium');
      s.strQuoteSeen = true;
      i = end; // its closing quote: read below as any string's
    }
  }
  const isKey = s.strIsKey;
  while (i < len) {
    const c = codes[i]!;
    if (isKey && (c === 0x27 || c === 0x22) && c !== close) { // ' "
      // `{"name': "Ada"}`: a name closed by the other quote, its colon right after it
      const j = skipBlanks(text, i + 1);
      if (j >= len && !s.final) return hold(s, run, i);
      if (text.charCodeAt(j) === 0x3a) { // :
        // repair: the quote that closes the name is the other kind — where the name ends is plain
        // from its colon, but the quote is a guess: medium
        s.log.doubt('closed_string', s.at(i), 'medium');
        finishString(s, text.slice(run, i));
        s.i = i + 1;
        return true;
      }
    }
    if (c === close || (c === open && open !== close)) {
      // A candidate closing quote: the next significant character decides whether it is one.
      let j = i + 1;
      while (j < len && isJsonWhitespace(text.charCodeAt(j))) j++;
      if (j >= len && !s.final) return hold(s, run, i);
      if (text.charCodeAt(j) === 0x3c && htmlCommentAt(text, j, s.final) < 0) return hold(s, run, i); // <
      const inner = j < len ? quoteInsideValue(s, text, j) : 0;
      if (inner < 0) return hold(s, run, i);
      // `"No." "Yes," she said.`: a quoted phrase that words of speech follow is more of the text,
      // not the next member (which would be a name and its colon).
      const phrase = inner === 0 && j > i + 1 && j < len && text.charCodeAt(j) === 0x22 && !s.strIsKey && s.stack.length > 0 // "
        && !s.stack[s.stack.length - 1]!.isArray ? spokenPhraseAt(text, j, s.final) : 0;
      if (phrase < 0) return hold(s, run, i);
      if (phrase === 0 && inner === 0 && (j >= len || endsString(s, text, i, j))) {
        if (j < len && !s.concat) fixContainerAround(s, text, i, j);
        finishString(s, text.slice(run, i));
        s.i = i + 1;
        return true;
      }
      // `"b,c,"d":"e"`: a quote after a comma, not followed by a delimiter, starts the next token;
      // the string should have ended before that comma.
      let k = i - 1;
      while (k >= run && isJsonWhitespace(text.charCodeAt(k))) k--;
      // `"Yes," she said`: the quote closes quoted speech when words that name no member follow it.
      // `, "I will." he said`: a quote right after the comma opens speech unless it opens a name.
      const speech = k < run || text.charCodeAt(k) !== 0x2c || s.strIsKey || s.stack.length === 0 || s.stack[s.stack.length - 1]!.isArray ? 0 // ,
        : j > i + 1 ? (j < len ? speechAfterComma(text, j, s.final) : 0) : quotedSpeechAt(text, i, s.final);
      if (speech < 0) return hold(s, run, i);
      if (speech === 0 && k >= run && text.charCodeAt(k) === 0x2c) { // ,
        if (nameEndsAtColon(s, text, run, k)) return true;
        // repair: the missing closing quote is supplied before the comma — where the string ends is
        // a guess, so medium confidence
        s.log.doubt('closed_string', s.at(k), 'medium');
        finishString(s, text.slice(run, k));
        s.i = k;
        return true;
      }
      if (c === 0x22) { // "
        // repair: a double quote inside the text (`a 24" screen`) is escaped
        s.record('escaped_inner_quote', i);
        s.strQuoteSeen = true;
      }
      i++;
      continue;
    }
    if (c === 0x5c) { // \ (backslash)
      if (i + 1 >= len) {
        if (!s.final) return hold(s, run, i);
        s.strParts.push(text.slice(run, i));
        run = i = len; // a lone backslash at the very end is dropped with the cut
        break;
      }
      const e = text.charCodeAt(i + 1);
      let decoded: string;
      let width = 2;
      if (e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) { // \b \f \n \r \t
        const raw = rawBackslash(text, i + 1, e, s.final);
        if (raw < 0) return hold(s, run, i);
        if (raw > 0 && s.strRawSeen) {
          // repair: `C:\Users\bob\file`, `\times … \cdot`: in a string that shows unescaped
          // backslashes, one before a letter is raw too, not a control character; it is kept, escaped
          s.record('escaped_backslash', i);
          s.strParts.push(text.slice(run, i), '\\');
          run = i = i + 1;
          continue;
        }
        if (raw > 0 && (e === 0x62 || e === 0x66)) { // \b \f
          // repair: `"\frac{1}{2}"`, `"\beta"`: a backspace or form feed before a letter is nobody's
          // meaning — the backslash is raw, kept, escaped, and so are its LaTeX-like escapes. Unless
          // the string also shows a backslash JSON has no escape for, it is valid JSON that reads
          // otherwise, so the reading is chosen: medium (finishString).
          s.record('escaped_backslash', i);
          if (s.strRawChosenAt < 0) s.strRawChosenAt = s.at(i);
          sawRawBackslash(s);
          s.strParts.push(text.slice(run, i), '\\');
          run = i = i + 1;
          continue;
        }
        if (raw > 0) {
          // Decoded as JSON reads it, unless the string later shows an unescaped backslash.
          s.strParts.push(text.slice(run, i), e === 0x62 ? '\b' : e === 0x66 ? '\f' : e === 0x6e ? '\n' : e === 0x72 ? '\r' : '\t');
          s.strRawCandidates.push(s.strParts.length - 1, s.at(i), e);
          run = i = i + 2;
          continue;
        }
      }
      switch (e) {
        case 0x22: decoded = '"'; break; // \"
        case 0x5c: decoded = '\\'; break; // \\
        case 0x2f: decoded = '/'; break; // \/
        case 0x62: decoded = '\b'; break; // \b
        case 0x66: decoded = '\f'; break; // \f
        case 0x6e: decoded = '\n'; break; // \n
        case 0x72: decoded = '\r'; break; // \r
        case 0x74: decoded = '\t'; break; // \t
        case 0x75: { // \u
          if (i + 6 > len && hexRun(text, i + 2, len) === len - i - 2) {
            if (!s.final) return hold(s, run, i);
            // The input ends inside \uXXXX: the partial escape goes with the cut.
            s.strParts.push(text.slice(run, i));
            run = i = len;
            decoded = '';
            width = 0;
            break;
          }
          const code = i + 6 > len ? -1 : hex4At(text, i + 2);
          if (code >= 0) {
            decoded = String.fromCharCode(code);
            width = 6;
          } else {
            // repair: `\u` without four hex digits is text: its backslash is kept, escaped
            keptBackslash(s, i, false);
            decoded = '\\';
            width = 1;
          }
          break;
        }
        case 0x0a: // \ before a line feed
          // repair: the line break is kept and the backslash dropped; JavaScript, JSON5 and Python
          // read it as a line continuation that drops the break too — readings differ: medium
          s.log.doubt('removed_invalid_escape', s.at(i), 'medium');
          decoded = '\n';
          break;
        case 0x78: { // \x
          // repair: `\xe9` (Python's and JavaScript's escape for a character up to U+00FF) becomes
          // that character. In a single-quoted string (Python's repr) that is what it means; in a
          // double-quoted one it may be a path (`C:\xfe\`): medium
          const code = i + 3 < len ? (hexValue(text.charCodeAt(i + 2)) << 4) | hexValue(text.charCodeAt(i + 3)) : -1;
          if (code < 0) {
            if (i + 4 > len && !s.final) return hold(s, run, i);
            keptBackslash(s, i, false); // repair: `\x` without two hex digits is text, as below
            decoded = '\\';
            width = 1;
            break;
          }
          if (open === 0x27) s.record('removed_invalid_escape', i);
          else s.log.doubt('removed_invalid_escape', s.at(i), 'medium');
          decoded = String.fromCharCode(code);
          width = 4;
          break;
        }
        case 0x27: // \'
          if (open !== 0x27) s.record('removed_invalid_escape', i); // repair: `\'` is not a JSON escape
          decoded = "'";
          break;
        case 0x60: // \` — in a backtick string (a JavaScript template) it is a backtick
          if (open !== 0x60) {
            keptBackslash(s, i, false);
            decoded = '\\';
            width = 1;
            break;
          }
          // repair: `\`` inside a backtick string is the backtick itself, as JavaScript reads it
          s.record('removed_invalid_escape', i);
          decoded = '`';
          break;
        default:
          // repair: a backslash that starts no JSON escape (`\d` in a regex, `C:\Users`) is kept as
          // text: it is escaped, and the character after it is read as usual. `\v` and `\0` are
          // JavaScript's and JSON5's vertical tab and NUL: keeping them as text is a choice, medium
          keptBackslash(s, i, e === 0x76 || e === 0x30); // v 0
          decoded = '\\';
          width = 1;
      }
      if (width === 0) break;
      s.strParts.push(text.slice(run, i), decoded);
      i += width;
      run = i;
      continue;
    }
    if (c < 0x20 && s.at(i) > s.controlSeen) {
      // repair: a raw newline, tab or other control character inside a string is escaped
      // (counted once even when a held-back tail is read again)
      s.controlSeen = s.at(i);
      s.record('escaped_control_character', i);
    }
    i++;
  }
  if (!s.final) return hold(s, run, len);
  if (nameEndsAtColon(s, text, run, len) || cutAtDelimiter(s, text, len)) return true;
  // repair: the input ends inside a string, which is closed; when the string runs over lines, it may
  // have swallowed what followed its lost closing quote: medium
  if (s.controlSeen > s.strStart) s.log.doubt('closed_string', s.at(len), 'medium');
  else s.record('closed_string', len);
  s.warnTruncated(s.strStart);
  if (!s.strIsKey) s.cutInValue = true;
  finishString(s, text.slice(run, i));
  s.i = len;
  return true;
}

const EMBEDDED_MAX = 4096;
const EMBEDDED_UNDECIDED = -1;

/**
 * A string that opens with `{` or `[` and holds valid JSON with double quotes of its own, closed
 * right before the string's closing quote and a delimiter after it (`"{"a": 1}",`): the index of
 * that closing quote; 0 when it is no such string; EMBEDDED_UNDECIDED when more input is needed.
 * What is no JSON is told early — an escaped quote (the writer escaped them), a character no JSON
 * has outside its strings (`[see below`), a quote that neither opens a string after `[ { , :` nor
 * is followed by `: , } ]` — so a string of prose is not held back. Bounded by EMBEDDED_MAX, so a
 * stream rereads at most that much per push while it waits.
 */
function embeddedJsonEnd(text: string, i: number, final: boolean): number {
  const len = text.length;
  const stop = Math.min(len, i + EMBEDDED_MAX);
  let depth = 0;
  let quoted = false;
  let inner = false;
  let last = 0; // the last character outside the inner strings that is no blank
  for (let j = i; j < stop; j++) {
    const c = text.charCodeAt(j);
    if (quoted) {
      if (c === 0x5c) j++; // \
      else if (c === 0x22) { // "
        quoted = false;
        last = c;
      }
      continue;
    }
    if (isJsonWhitespace(c)) continue;
    if (last === 0x22 && c !== 0x3a && c !== 0x2c && c !== 0x7d && c !== 0x5d) return 0; // after a string: : , } ]
    if (c === 0x22) { // "
      if (last !== 0x5b && last !== 0x7b && last !== 0x2c && last !== 0x3a) return 0; // [ { , :
      quoted = inner = true;
    } else if (c === 0x7b || c === 0x5b) depth++; // { [
    else if (c === 0x7d || c === 0x5d) { // } ]
      if (--depth === 0) return embeddedClose(text, i, j, inner, final);
    } else if (!jsonOutsideStrings(c)) return 0;
    last = c;
  }
  return stop === len && len - i < EMBEDDED_MAX && !final ? EMBEDDED_UNDECIDED : 0;
}

/** What JSON has outside its strings besides brackets, quotes and blanks: numbers, literals, `,` `:`. */
function jsonOutsideStrings(c: number): boolean {
  switch (c) {
    case 0x2d: case 0x2b: case 0x2e: case 0x2c: case 0x3a: // - + . , :
    case 0x65: case 0x45: case 0x74: case 0x72: case 0x75: case 0x66: case 0x61: case 0x6c: case 0x73: case 0x6e: // e E t r u f a l s n
      return true;
    default:
      return isDigit(c);
  }
}

/** embeddedJsonEnd's verdict once the container that opened at i closed at j. */
function embeddedClose(text: string, i: number, j: number, inner: boolean, final: boolean): number {
  const len = text.length;
  if (!inner) return 0; // no quote inside: the string reads as it is
  if (j + 1 >= len) return final ? 0 : EMBEDDED_UNDECIDED;
  if (text.charCodeAt(j + 1) !== 0x22) return 0; // "
  const k = skipBlanks(text, j + 2);
  if (k >= len && !final) return EMBEDDED_UNDECIDED;
  const d = text.charCodeAt(k);
  if (k < len && d !== 0x2c && d !== 0x7d && d !== 0x5d) return 0; // , } ]
  try {
    JSON.parse(text.slice(i, j + 1));
  } catch {
    return 0;
  }
  return j + 1;
}

/**
 * Saves the string's text up to `upTo` and keeps the rest of the window for the next piece. A
 * trailing `,` plus whitespace stays in the window: the comma rule above must see it with the quote.
 */
function hold(s: Scanner, run: number, upTo: number): boolean {
  const text = s.text;
  let k = upTo - 1;
  while (k >= run && isJsonWhitespace(text.charCodeAt(k))) k--;
  if (k >= run && text.charCodeAt(k) === 0x2c) upTo = k; // ,
  if (upTo > run) s.strParts.push(text.slice(run, upTo));
  s.i = upTo;
  return false;
}

/**
 * A string has ended at i and `text[j]` follows it. Where that shows a bracket was lost, it is put
 * back before the string is stored: `{"tags": ["a", "b", "count": 2}` (the array's `]` before the
 * next member), `"a": 1, "b": 2}` and `"Paris", "London"]` (the output began inside a container, as
 * after a prefilled `{` or `[`).
 */
function fixContainerAround(s: Scanner, text: string, i: number, j: number): void {
  const depth = s.stack.length;
  const next = text.charCodeAt(j);
  if (depth >= 1 && next === 0x3a && !s.strIsKey && s.stack[depth - 1]!.set === SET_READ) { // :
    // `{"x", "y": 1}`: a name and its colon after a set's items — the braces held an object after all
    setToObject(s);
    s.strIsKey = true;
  } else if (depth >= 1 && next === 0x3a && !s.strIsKey && s.stack[depth - 1]!.isArray && (s.stack[depth - 1]!.container as unknown[]).length === 0) { // :
    // repair: `{"meta": ["kind": "doc", "v": 2]}` — members written in brackets: the writer meant an
    // object, and `]` will close it
    const top = s.stack.pop()!;
    const members: Record<string, unknown> = {};
    s.replaceLast(members);
    s.stack.push(top);
    top.container = members;
    top.isArray = false;
    top.bracketed = true;
    s.log.record('converted_array_to_object', s.strStart);
    s.strIsKey = true;
  } else if (depth >= 2 && next === 0x3a && !s.strIsKey) { // :
    const top = s.stack[depth - 1]!;
    if (top.isArray && !s.stack[depth - 2]!.isArray && (top.container as unknown[]).length > 0) {
      // repair: `{"tags": ["a", "b", "count": 2}` — the array's `]` was missing before the next member
      s.close('closed_array_bracket', s.strStart - s.base);
      s.strIsKey = true;
    }
  } else if (depth === 0 && next === 0x3a) { // :
    // repair: `"a": 1, "b": 2}` — the output began inside an object (a prefilled `{`)
    s.log.record('inserted_missing_opening_bracket', s.strStart);
    s.open(false, i);
    s.strIsKey = true;
  } else if (depth === 0 && next === 0x2c && startsValue(text, j + 1, text.length)) { // ,
    // repair: `"Paris", "London"]` — the output began inside an array
    s.log.record('inserted_missing_opening_bracket', s.strStart);
    s.open(true, i);
  }
}

const PROSE_RUN_MAX = 200;

// LaTeX commands that start like \n \r \t escapes. Short ones that are also a line break or tab
// before an ordinary word (`\ni)`, `\ne.g.`, `\nu = 2`, `\tan apple`, `\to`) are left out.
const LATEX_COMMANDS = new Set([
  'neq', 'nabla', 'nexists', 'newline', 'nolimits', 'nmid', 'nleq', 'ngeq',
  'rho', 'right', 'rangle', 'rightarrow', 'rfloor', 'rceil', 'rbrace', 'rvert',
  'times', 'theta', 'tau', 'text', 'textbf', 'textit', 'textrm', 'texttt', 'tilde', 'triangle',
  'tfrac', 'tanh', 'therefore',
]);
const LATEX_MAX = 10;

/**
 * Could the backslash before text[e] (one of b f n r t) be the model's raw backslash rather than an
 * escape? `\b` and `\f` before a letter (`\beta`, `\frac`, `C:\bob`, `\file`): nobody means a
 * backspace or form feed there. `\n` `\r` `\t` only when their letters spell a LaTeX command
 * (`\times`, `\neq`, `\rho`); `\nWorld`, `\tAlice` are a line break and a tab. Such a backslash is
 * read as raw only in a string that also shows one JSON has no escape for (sawRawBackslash): a string
 * that is valid JSON is read as JSON.parse reads it. 1 yes, 0 no, -1 more input is needed.
 */
function rawBackslash(text: string, e: number, code: number, final: boolean): number {
  const len = text.length;
  let k = e;
  while (k < len && k - e <= LATEX_MAX && isAsciiLetter(text.charCodeAt(k))) k++;
  if (k >= len && !final && k - e <= LATEX_MAX) return -1;
  if (code === 0x62 || code === 0x66) return k > e + 1 ? 1 : 0; // \b \f with a letter after
  return k - e <= LATEX_MAX && LATEX_COMMANDS.has(text.slice(e, k)) ? 1 : 0;
}

/**
 * `{"text": "She said "yes", then left.", "n": 1}`: in an object's value, a quote followed by `,`
 * or `:` whose sequel is prose — a letter, then text without `:` brackets or backslashes that
 * reaches another quote followed by `,` `}` `]` or a line end, all on one line — is inside the
 * text. 1 when so, 0 when the quote may end the string (`"x", b: 2`, `"x", "b": 1`), -1 when the
 * line has not arrived. Arrays are left alone (`["a", b]` holds a bare element) unless the reading
 * knows their items are strings (ProsePolicy.stringItems).
 */
function quoteInsideValue(s: Scanner, text: string, j: number): number {
  const next = text.charCodeAt(j);
  if (s.strIsKey) return nameGoesOn(text, j, s.final);
  if (next !== 0x2c && next !== 0x3a) return 0; // , :
  if (s.stack.length > 0 && s.stack[s.stack.length - 1]!.isArray && (next !== 0x2c || s.policy.stringItems !== true)) return 0;
  const runs = proseRunsToQuote(text, j + 1, s.strClose, s.final);
  if (runs !== 0 || next !== 0x2c || s.stack.length === 0 || s.stack[s.stack.length - 1]!.isArray) return runs; // ,
  return speechAfterComma(text, j + 1, s.final);
}

const NAME_ON_MAX = 64;

/**
 * From j, after a candidate closing quote in a member name: words on the same line and then a
 * quote with the colon right after it (`{"height 5" tall": true}`, `{"the "best" one": 1}`) — the
 * name holds a quote and goes on to that one. 1: it goes on; 0: it ended (`{"a" true}`, `{"a": 1}`,
 * nothing but a word, a mark or NAME_ON_MAX characters first); -1: the window ends before it shows.
 */
function nameGoesOn(text: string, j: number, final: boolean): number {
  const len = text.length;
  const first = text.charCodeAt(j);
  if (!isAsciiLetter(first) && !isDigit(first)) return 0;
  const stop = Math.min(len, j + NAME_ON_MAX);
  for (let k = j; k < stop; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22) { // "
      const after = skipBlanks(text, k + 1);
      if (after >= len) return final ? 0 : -1;
      return text.charCodeAt(after) === 0x3a ? 1 : 0; // :
    }
    if (c === 0x3a || c === 0x2c || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x0a || c === 0x0d) return 0; // : , { } [ ] LF CR
  }
  return stop === len && len - j < NAME_ON_MAX && !final ? -1 : 0;
}

/**
 * From k, after a candidate closing quote and a comma on either side of it (`"Yes," she said`,
 * `"I will", he said`) inside an object's string value: quoted speech goes on with words that name
 * no member, where a member would follow (`"b":`, or a bare name and its `:` or `=`). 1: words that
 * are no member's name, so the quote was inside the text; 0: a member, or no letter; -1: the window
 * ends before it shows.
 */
function speechAfterComma(text: string, k: number, final: boolean): number {
  const len = text.length;
  k = skipBlanks(text, k);
  if (k >= len) return final ? 0 : -1;
  const first = text.charCodeAt(k);
  if (first === 0x22) return quotedWordThenWords(text, k, final); // "
  if (!(isAsciiLetter(first) || first > 0x7f)) return 0; // a letter
  for (let c = first; isAsciiLetter(c) || c > 0x7f || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24; c = text.charCodeAt(++k)) { // letter digit _ $
    if (k >= len) return final ? 0 : -1;
  }
  // A word of speech ends at a blank or a mark (`she said`, `he added.`); one glued to anything
  // else (`u'b'`, a prefixed string) is not prose.
  const end = text.charCodeAt(k);
  if (end !== 0x20 && end !== 0x09 && end !== 0x2c && end !== 0x2e && end !== 0x3b && end !== 0x21 && end !== 0x3f) return 0; // space tab , . ; ! ?
  k = skipBlanks(text, k);
  if (k >= len) return final ? 0 : -1;
  const after = text.charCodeAt(k);
  return after === 0x3a || after === 0x3d ? 0 : 1; // : = (a member's name: the string had ended)
}

const QUOTED_WORD_MAX = 40;

/**
 * At k, a quote after `"red",` inside an object's string value: a short quoted word or phrase and
 * then a word that names no member (`"use "red", "green" or "blue" only"`) — a list of quoted words
 * in the text, so the quote before the comma was inside it. 1: such words; 0: a member (`"b": 2`,
 * `"b" :`), a value after it (`"b", "c"`), or no word; -1: the window ends before it shows.
 */
function quotedWordThenWords(text: string, k: number, final: boolean): number {
  const len = text.length;
  const stop = Math.min(len, k + 1 + QUOTED_WORD_MAX);
  let q = k + 1;
  for (; q < stop; q++) {
    const c = text.charCodeAt(q);
    if (c === 0x22) break; // "
    if (c === 0x5c || c === 0x3a || c === 0x2c || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x0a) return 0; // \ : , { } [ ] LF
  }
  if (q >= stop) return q >= len && !final ? -1 : 0;
  const after = skipBlanks(text, q + 1);
  if (after >= len) return final ? 0 : -1;
  if (after === q + 1 || !isAsciiLetter(text.charCodeAt(after))) return 0; // a word after a blank
  let w = after;
  while (w < len && isAsciiLetter(text.charCodeAt(w))) w++;
  if (w >= len) return final ? 0 : -1;
  const next = text.charCodeAt(skipBlanks(text, w));
  return next === 0x3a || next === 0x3d ? 0 : 1; // : = (a bare name: a member after all)
}

/** From k (just after a `,` or `:` that followed a candidate closing quote): see quoteInsideValue. */
export function proseRunsToQuote(text: string, k: number, quote: number, final: boolean): number {
  const len = text.length;
  k = skipBlanks(text, k);
  if (k >= len) return final ? 0 : -1;
  const first = text.charCodeAt(k);
  if (!(isAsciiLetter(first) || first > 0x7f)) return 0; // a letter
  for (const end = k + PROSE_RUN_MAX; k < len && k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === quote) { // does it end the value?
      const m = skipBlanks(text, k + 1);
      if (m >= len) return final ? 1 : -1;
      return endsBareValue(text.charCodeAt(m)) ? 1 : 0;
    }
    // : { } [ ] LF CR \ — structure, a member name or an escape: not a run of prose
    if (c === 0x3a || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x0a || c === 0x0d || c === 0x5c) return 0;
  }
  return k >= len && !final ? -1 : 0;
}

/** After the quote at i, the next significant character is at j: did the string end? */
function endsString(s: Scanner, text: string, i: number, j: number): boolean {
  const next = text.charCodeAt(j);
  if (s.stack.length === 0) {
    // A root string ends at the end of the input, a fence, a concatenation or a JSONP close; at
    // `,` `:` `]` `}` (the output began inside a container: `"a": 1}`, `"x", "y"]`); at a line break
    // (`"positive"` and a line of commentary); or at a period that ends the input's line.
    if (next === 0x60 || next === 0x2b || (s.jsonp && (next === 0x29 || next === 0x3b))) return true; // ` + ) ;
    if (next === 0x2c || next === 0x3a) return true; // , :
    for (let k = i + 1; k < j; k++) if (text.charCodeAt(k) === 0x0a) return true; // LF
    if (next === 0x2e || next === 0x5d || next === 0x7d) { // . ] } — only when it ends the line (`"x"] more"` is text)
      const k = skipBlanks(text, j + 1);
      if (k >= text.length) return true;
      const after = text.charCodeAt(k);
      return after === 0x0a || after === 0x0d || (next !== 0x2e && (after === 0x2c || after === 0x5d || after === 0x7d)); // LF CR , ] }
    }
    return false;
  }
  if ((next === 0x22 || (next === 0x27 && s.strClose === 0x27)) && j === i + 1 && !s.strIsKey && closesAfter(text, j + 1)) {
    // `"He said "hi""}`, `'James''`: two quotes together and then the end of the value — the
    // first is an inner quote or an apostrophe, the second ends the string (not an empty string
    // missing its comma)
    return false;
  }
  if (endsStringBefore(next) || (next === 0x29 && (s.calls > 0 || s.stack[s.stack.length - 1]!.tuple))) return true; // ) closing a wrapper or a tuple
  // `"x" <!-- note --> + "y"`: an HTML comment between a container's tokens (the scanner skips it)
  if (next === 0x3c && htmlCommentAt(text, j, true) > 0) return true; // <
  // A bare member name and its colon follow in an object (`{a: 'x' b: False}`): the string ended and
  // its comma is missing (the caller reports it).
  if (!s.strIsKey && j > i + 1 && isAsciiLetter(next) && !s.stack[s.stack.length - 1]!.isArray && bareNameAt(text, j)) return true;
  // A member name followed by a space (`{"a" true}`) has ended: names rarely hold quotes.
  if (s.strIsKey && j > i + 1) return true;
  // A quote at the end of a line: the next line is the next member (`"John"\n  lastName: Smith`) —
  // unless the string already runs over lines (it holds a raw control character) and the next line
  // is more of its text, running on to the real closing quote (`"one\n"two"\nthree", "n": 1`).
  // So does text that has shown quoted speech when the next line is prose, not a member (`Name:`).
  for (let k = i + 1; k < j; k++) {
    if (text.charCodeAt(k) === 0x0a) { // LF
      if (s.strIsKey) return true;
      if (s.controlSeen > s.strStart && proseRunsToQuote(text, j, s.strClose, s.final) === 1) return false;
      return !(s.strQuoteSeen && !s.stack[s.stack.length - 1]!.isArray && proseLineAt(text, j));
    }
  }
  return false;
}

/** phraseEnd's answers besides an index: no short quoted phrase opens here; the window ends first. */
const NO_PHRASE = -1;
const MORE_TEXT = -2;

/**
 * The closing quote of the short phrase the quote at q opens on its line (within PROSE_RUN_MAX, no
 * escape), or NO_PHRASE, or MORE_TEXT when the window ends first.
 */
function phraseEnd(text: string, q: number, final: boolean): number {
  const len = text.length;
  for (let k = q + 1, end = q + 1 + PROSE_RUN_MAX; k < end; k++) {
    if (k >= len) return final ? NO_PHRASE : MORE_TEXT;
    const c = text.charCodeAt(k);
    if (c === 0x0a || c === 0x0d || c === 0x5c) return NO_PHRASE; // LF CR \ — not a short quoted phrase
    if (c === 0x22) return k; // "
  }
  return NO_PHRASE;
}

/**
 * The quote at q follows a comma inside an object's string value: 1 when it opens quoted text (its
 * closing quote, on the same line, is followed by no `:`), 0 when it opens a member name (`"b":`)
 * or shows neither, -1 when the window ends first.
 */
function quotedSpeechAt(text: string, q: number, final: boolean): number {
  const k = phraseEnd(text, q, final);
  if (k < 0) return k === MORE_TEXT ? -1 : 0;
  const m = skipBlanks(text, k + 1);
  if (m >= text.length) return final ? 0 : -1;
  return text.charCodeAt(m) === 0x3a ? 0 : k > q + 1 ? 1 : 0; // : — a name; "" — nothing quoted
}

/**
 * The quote at q opens a phrase on the same line whose closing quote is followed by a blank and
 * words of speech (`"Yes," she said`): 1; a name (`"b":`), a value, or neither: 0; -1 when the
 * window ends first.
 */
function spokenPhraseAt(text: string, q: number, final: boolean): number {
  const k = phraseEnd(text, q, final);
  if (k < 0) return k === MORE_TEXT ? -1 : 0;
  if (k === q + 1 || k + 1 >= text.length) return k + 1 >= text.length && !final ? -1 : 0;
  const blank = text.charCodeAt(k + 1);
  return blank === 0x20 || blank === 0x09 ? speechAfterComma(text, k + 1, final) : 0; // space tab
}

/** A line of prose at j: a word and more words, no member name (`name:`) and no structure first. */
function proseLineAt(text: string, j: number): boolean {
  const first = text.charCodeAt(j);
  if (!(isAsciiLetter(first) || first > 0x7f) || bareNameAt(text, j)) return false; // a letter
  let k = j;
  while (k < text.length && (isAsciiLetter(text.charCodeAt(k)) || text.charCodeAt(k) > 0x7f)) k++;
  return text.charCodeAt(k) === 0x20; // space: a second word follows
}

/** `name:` (an identifier, blanks, a colon) at j. */
function bareNameAt(text: string, j: number): boolean {
  let k = j;
  for (let c = text.charCodeAt(k); isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24; c = text.charCodeAt(++k)); // letter digit _ $
  return text.charCodeAt(skipBlanks(text, k)) === 0x3a; // :
}

/** A `,` `}` or `]` (or the end of the input) follows from j, after blanks. */
function closesAfter(text: string, j: number): boolean {
  while (j < text.length && isJsonWhitespace(text.charCodeAt(j))) j++;
  if (j >= text.length) return true;
  const c = text.charCodeAt(j);
  return c === 0x2c || c === 0x7d || c === 0x5d; // , } ]
}

/**
 * The input ended inside a string whose last character is a delimiter (`["abc]`): the closing quote
 * was missing earlier. The string ends at its first delimiter or line break, and the scanner reads
 * the rest as structure. Only when the raw string is still in the window and has no escapes.
 */
function cutAtDelimiter(s: Scanner, text: string, len: number): boolean {
  const from = s.strStart - s.base + 1;
  if (from < 1 || s.strParts.length > 0 || s.strIsKey) return false;
  let last = len - 1;
  while (last >= from && isJsonWhitespace(text.charCodeAt(last))) last--;
  // a closing fence after the delimiter (`{"key": "value}```): the reply's end, not the string's
  if (last - 2 > from && text.startsWith('```', last - 2)) {
    last -= 3;
    while (last >= from && isJsonWhitespace(text.charCodeAt(last))) last--;
  }
  if (last < from) return false;
  const lastChar = text.charCodeAt(last);
  if (lastChar !== 0x5d && lastChar !== 0x7d && lastChar !== 0x2c) return false; // ] } ,
  let p = from;
  for (; p < len; p++) {
    const c = text.charCodeAt(p);
    if (c === 0x5c) return false; // \ — escapes were decoded into parts; keep the simple path
    if (c === 0x5d || c === 0x7d || c === 0x0a || c === 0x0d) break; // ] } LF CR
    if (c === 0x2c && startsValue(text, p + 1, len)) break; // `,` followed by the next element
  }
  let end = p;
  while (end > from && isJsonWhitespace(text.charCodeAt(end - 1))) end--;
  // repair: the missing closing quote is supplied where the string must have ended (a guess: medium)
  s.log.doubt('closed_string', s.at(end), 'medium');
  finishString(s, text.slice(from, end));
  s.i = p;
  return true;
}

/**
 * A member name that runs on past a colon (`{"a: 1, "b": 2}`, `{"a: 1}` at the end) lost its
 * closing quote before that colon: names rarely hold one. Only for a name with no escapes so far
 * whose raw text is still in the window.
 */
function nameEndsAtColon(s: Scanner, text: string, run: number, limit: number): boolean {
  if (!s.strIsKey || s.strParts.length > 0 || s.strStart - s.base + 1 !== run) return false;
  const colon = text.indexOf(':', run);
  if (colon < 0 || colon >= limit) return false;
  let end = colon;
  while (end > run && isJsonWhitespace(text.charCodeAt(end - 1))) end--;
  if (end === run) return false;
  // repair: the missing closing quote is supplied before the colon (a guess: medium)
  s.log.doubt('closed_string', s.at(end), 'medium');
  finishString(s, text.slice(run, end));
  s.i = colon;
  return true;
}

/** How many hex digits follow from j (at most four, up to len). */
function hexRun(text: string, j: number, len: number): number {
  let n = 0;
  while (n < 4 && j + n < len && hexValue(text.charCodeAt(j + n)) >= 0) n++;
  return n;
}

/** Whether a quoted value, a number or a container starts after whitespace at j. */
function startsValue(text: string, j: number, len: number): boolean {
  while (j < len && isJsonWhitespace(text.charCodeAt(j))) j++;
  if (j >= len) return false;
  const c = text.charCodeAt(j);
  return c === 0x22 || c === 0x27 || c === 0x7b || c === 0x5b || c === 0x2d || (c >= 0x30 && c <= 0x39); // " ' { [ - digit
}

function finishString(s: Scanner, lastRun: string): void {
  // `\frac` in a string with no other sign of raw backslashes: valid JSON read otherwise (medium)
  if (s.strRawChosenAt >= 0 && !s.strInvalidSeen) s.log.doubt('escaped_backslash', s.strRawChosenAt, 'medium');
  const parts = s.strParts;
  let value = lastRun;
  if (parts.length !== 0) { // (setting an array's length is a slow runtime call: only when needed)
    value = parts.join('') + lastRun;
    parts.length = 0;
  }
  s.inString = false;
  if (s.strIsKey) {
    const top = s.stack[s.stack.length - 1]!;
    top.key = value;
    top.keyPos = s.strStart;
    s.afterComma = false;
    s.phase = COLON;
    return;
  }
  if (s.concat) {
    // repair: `"a" + "b"` becomes one string
    s.concat = false;
    s.replaceLast((s.lastValue() as string) + value);
    s.phase = s.stack.length === 0 ? AFTER_ROOT : AFTER_VALUE;
    s.lastWasString = true;
    return;
  }
  s.emit(value);
  s.lastWasString = true;
}

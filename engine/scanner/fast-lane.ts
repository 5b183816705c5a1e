// The fast lane: plain JSON inside a container — JSON whitespace, brackets, commas and colons,
// strings without escapes or control characters, well-formed numbers, true/false/null — read in one
// tight loop. It makes no repairs: at the first token it is not sure of (anything to repair, an
// escape, a token that reaches the end of the window) it stops at that token's start, and the
// general scanner decides. Most of a model's reply, even a broken one, is plain JSON.
import { AFTER_VALUE, COLON, KEY, type Scanner, VALUE } from './scanner.js';

export function fastLane(s: Scanner): void {
  const text = s.text;
  const len = text.length;
  const stack = s.stack;
  let i = s.i;
  for (;;) {
    let c = text.charCodeAt(i); // NaN past the end: every comparison below fails
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i); // whitespace
    if (i >= len) break;
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    const phase = s.phase;
    if (phase === VALUE) {
      if (c === 0x22) { // "
        const end = plainStringEnd(text, i + 1);
        if (end < 0 || !valueEndsAt(text, end + 1)) break;
        s.emit(text.slice(i + 1, end));
        s.lastWasString = true;
        i = end + 1;
      } else if (c === 0x7b || c === 0x5b) { // { [
        s.open(c === 0x5b, i);
        if (s.tooDeep) return;
        i = s.i;
      } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) { // digit -
        const end = numberEnd(text, i);
        if (end < 0 || !valueEndsAt(text, end)) break;
        const n = +text.slice(i, end);
        if (n === Infinity || n === -Infinity) break;
        s.emit(n);
        i = end;
      } else if (c === 0x74 && text.startsWith('true', i) && valueEndsAt(text, i + 4)) { // t
        s.emit(true);
        i += 4;
      } else if (c === 0x66 && text.startsWith('false', i) && valueEndsAt(text, i + 5)) { // f
        s.emit(false);
        i += 5;
      } else if (c === 0x6e && text.startsWith('null', i) && valueEndsAt(text, i + 4)) { // n
        s.emit(null);
        i += 4;
      } else if (c === 0x5d && top.isArray && !s.afterComma) { // ] of an empty array
        s.close(undefined, i);
        i++;
      } else break;
    } else if (phase === AFTER_VALUE) {
      if (c === 0x2c) { // ,
        s.phase = top.isArray ? VALUE : KEY;
        s.afterComma = true;
        s.commaPos = s.base + i;
        s.lastWasString = false;
        i++;
      } else if ((c === 0x7d && !top.isArray) || (c === 0x5d && top.isArray)) { // } ]
        s.close(undefined, i);
        i++;
      } else break;
    } else if (phase === KEY) {
      if (c === 0x22) { // "
        const end = plainStringEnd(text, i + 1);
        if (end < 0) break;
        let j = end + 1;
        let d = text.charCodeAt(j);
        while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = text.charCodeAt(++j);
        if (d !== 0x3a) break; // : must follow the name
        const memo = s.keyMemo[stack.length];
        const known = memo === undefined ? undefined : memo[top.members];
        const name = text.slice(i + 1, end);
        top.key = known !== undefined && known === name ? known : name;
        top.keyPos = s.base + i;
        s.afterComma = false;
        s.phase = VALUE;
        i = j + 1;
      } else if (c === 0x7d && !s.afterComma) { // } of an empty object
        s.close(undefined, i);
        i++;
      } else break;
    } else if (phase === COLON && c === 0x3a) { // :
      s.phase = VALUE;
      i++;
    } else break;
  }
  s.i = i;
}

/** Index of the closing quote of a string with no escape or control character from `from`, else -1. */
function plainStringEnd(text: string, from: number): number {
  let j = from;
  let d = text.charCodeAt(j);
  while (d !== 0x22 && d !== 0x5c && d >= 0x20) d = text.charCodeAt(++j); // " \ control (NaN at the end)
  return d === 0x22 ? j : -1;
}

/** End of a JSON number at i (grammar-exact, no leading zeros), else -1. */
function numberEnd(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 0x2d) j++; // -
  let d = text.charCodeAt(j);
  if (d === 0x30) d = text.charCodeAt(++j); // 0
  else if (d >= 0x31 && d <= 0x39) {
    do d = text.charCodeAt(++j); while (d >= 0x30 && d <= 0x39);
  } else return -1;
  if (d === 0x2e) { // .
    d = text.charCodeAt(++j);
    if (!(d >= 0x30 && d <= 0x39)) return -1;
    do d = text.charCodeAt(++j); while (d >= 0x30 && d <= 0x39);
  }
  if (d === 0x65 || d === 0x45) { // e E
    d = text.charCodeAt(++j);
    if (d === 0x2b || d === 0x2d) d = text.charCodeAt(++j); // + -
    if (!(d >= 0x30 && d <= 0x39)) return -1;
    do d = text.charCodeAt(++j); while (d >= 0x30 && d <= 0x39);
  }
  return j;
}

/** A value ending at j is certainly complete: a comma or closer follows, possibly after whitespace. */
function valueEndsAt(text: string, j: number): boolean {
  let d = text.charCodeAt(j);
  while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = text.charCodeAt(++j);
  return d === 0x2c || d === 0x7d || d === 0x5d; // , } ]
}

// A reference for bench/engine, not an engine: the smallest JavaScript parser that builds a value
// from *valid* JSON, with no repair, no error handling, no position tracking and no streaming. It
// answers "how fast can any JavaScript reader of this text be on this machine?": a repair engine does
// strictly more (every character it reads, it also has to judge), so its time on a reply cannot
// fall below this parser's time on the repaired reply. The bench checks its value against JSON.parse
// before timing it. Never use it on untrusted input: it trusts its input completely.

function skipBlanks(text: string, i: number): number {
  while (text.charCodeAt(i) <= 0x20) i++; // space, tab, LF, CR
  return i;
}

/** The member name readName read last (the parser's one piece of state outside its loop). */
let name = '';

/** Reads the member name at the `"` at i into `name`; returns the index after its `:`. */
function readName(text: string, i: number): number {
  const end = text.indexOf('"', i + 1); // names in the bench's replies hold no escapes
  name = text.slice(i + 1, end);
  return text.indexOf(':', end + 1) + 1;
}

/** The valid JSON `text` as a value (the same value JSON.parse gives, for the bench's documents). */
export function floorParse(text: string): unknown {
  const containers: (Record<string, unknown> | unknown[])[] = [];
  const names: string[] = [];
  let current: Record<string, unknown> | unknown[] | null = null;
  let isArray = false;
  let root: unknown;
  let i = skipBlanks(text, 0);
  for (;;) {
    const c = text.charCodeAt(i);
    let value: unknown;
    let opened = false;
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        value = c === 0x5b ? [] : {};
        opened = true;
        i++;
        break;
      case 0x22: { // "
        let j = i + 1;
        let d = text.charCodeAt(j);
        while (d !== 0x22 && d !== 0x5c) d = text.charCodeAt(++j);
        if (d === 0x22) {
          value = text.slice(i + 1, j);
        } else { // an escape: find the real end, let JSON.parse decode the one string
          while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
          value = JSON.parse(text.slice(i, j + 1));
        }
        i = j + 1;
        break;
      }
      case 0x74: value = true; i += 4; break; // t
      case 0x66: value = false; i += 5; break; // f
      case 0x6e: value = null; i += 4; break; // n
      default: { // a number
        let j = i;
        let d = c;
        while ((d >= 0x30 && d <= 0x39) || d === 0x2d || d === 0x2b || d === 0x2e || d === 0x65 || d === 0x45) d = text.charCodeAt(++j);
        value = +text.slice(i, j);
        i = j;
      }
    }
    if (current === null) root = value;
    else if (isArray) (current as unknown[]).push(value);
    else (current as Record<string, unknown>)[name] = value;
    if (opened) {
      if (current !== null) {
        containers.push(current);
        names.push(name);
      }
      current = value as Record<string, unknown> | unknown[];
      isArray = c === 0x5b;
      i = skipBlanks(text, i);
      const d = text.charCodeAt(i);
      if (d !== 0x5d && d !== 0x7d) { // not empty
        if (!isArray) i = skipBlanks(text, readName(text, i));
        continue;
      }
    }
    // After a value: commas and closers until the next value or the end.
    for (;;) {
      i = skipBlanks(text, i);
      const d = text.charCodeAt(i);
      if (d === 0x2c) { // ,
        i = skipBlanks(text, i + 1);
        if (!isArray) i = skipBlanks(text, readName(text, i));
        break;
      }
      if (d === 0x5d || d === 0x7d) { // ] }
        i++;
        if (containers.length === 0) return root;
        current = containers.pop()!;
        name = names.pop()!;
        isArray = Array.isArray(current);
        continue;
      }
      return root;
    }
  }
}

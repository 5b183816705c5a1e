// Lines and lists read through the schema (docs/schema.md "Lines and lists"): a reply with no JSON
// the schema accepts, written as `key: value` lines (YAML-like, labelled lines, members with no
// braces) under an object schema, or as a markdown list (bullets, numbers; a labelled one-line list
// split at its commas) under an array schema. Only names the schema declares are members, so prose
// lines are passed over; each value is read as its declared type by the schema pass that follows.
// One pass over the lines; align.ts calls it only when every other reading failed.
import type { Effective } from './effective.js';
import type { SchemaModel } from './model.js';
import { declaredNameFor } from './name-match.js';
import { T_ARRAY, T_BOOLEAN, T_OBJECT, T_STRING } from './type-mask.js';

export interface LinesReading {
  value: unknown;
  /** Input offset of the first line read. */
  position: number;
  /** Lines inside the reading were passed over (nested list items, another list): a reading chosen. */
  doubtful: boolean;
}

interface Line {
  start: number;
  indent: number;
  /** The line's text after its indentation, trailing blanks removed. */
  text: string;
}

// A member line: an optional list marker and markdown emphasis, a name (quoted or bare), `:` or `=`.
const MEMBER = /^(?:[-*+\u2022]\s+|\d{1,3}[.)]\s+)?(?:\*\*|__)?["'`]?([A-Za-z_][\w .\/()-]{0,60}?)["'`]?(?:\*\*|__)?\s*[:=](?:\*\*|__)?(?:\s+(.*))?$/;
// A task list's box after the marker (`- [ ] buy milk`, `- [x] done`) is not the item's text.
const BULLET = /^(?:[-*+\u2022]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/;
// A labelled one-line list: `Fruits: apple, pear, fig`.
const LABELLED_LIST = /^[^:]{1,60}:\s*([^:]+,[^:]+)$/;
// Where the next member starts inside a line of several (`name: Ann, age: 30`).
const NEXT_MEMBER = /,\s*["'`]?([A-Za-z_][\w .-]{0,60}?)["'`]?\s*[:=]\s*/g;
/** A value the lines cannot read whole: its member is left out. */
const UNREAD: unique symbol = Symbol('unread');
const YES = /^(?:yes|y|on)$/i;
const NO = /^(?:no|n|off)$/i;

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let a = start;
    while (a < end && (text.charCodeAt(a) === 0x20 || text.charCodeAt(a) === 0x09)) a++;
    let b = end;
    while (b > a && text.charCodeAt(b - 1) <= 0x20) b--;
    lines.push({ start: a, indent: a - start, text: text.slice(a, b) });
    start = end + 1;
  }
  return lines;
}

/** The reply read as lines or a list under the schema's root, or null when it is not written so. */
export function readLines(text: string, model: SchemaModel, root: Effective): LinesReading | null {
  if (text.length > 1_000_000) return null;
  const lines = linesOf(text);
  if ((root.types & T_OBJECT) !== 0 && root.properties !== null) {
    const read = readObject(lines, 0, -1, model, root);
    if (read.count > 0) return { value: read.value, position: read.position, doubtful: false };
  }
  if ((root.types & T_ARRAY) !== 0 && (root.arrays !== null || root.types === T_ARRAY)) return readList(lines, elementOf(model, root, 0));
  return null;
}

interface ObjectRead { value: Record<string, unknown>; next: number; count: number; position: number }

/**
 * The members of an object under `e` from lines[from…]: lines deeper than `parentIndent`, or all
 * (skipping prose) at the root (`parentIndent` -1).
 */
function readObject(lines: Line[], from: number, parentIndent: number, model: SchemaModel, e: Effective): ObjectRead {
  const value: Record<string, unknown> = {};
  let count = 0;
  let position = -1;
  let i = from;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.text === '') {
      i++;
      continue;
    }
    if (parentIndent >= 0 && line.indent <= parentIndent) break;
    const m = MEMBER.exec(line.text);
    const name = m === null ? undefined : declaredNameFor(e, m[1]!.trim(), value) ?? (e.properties?.has(m[1]!) === true && !Object.hasOwn(value, m[1]!) ? m[1] : undefined);
    if (m === null || name === undefined) {
      // A line that is no member of this object: prose at the root, the end of a nested block.
      if (parentIndent >= 0) break;
      i++;
      continue;
    }
    if (position < 0) position = line.start;
    const child = model.member(e, name);
    const rest = m[2] ?? '';
    i++;
    if (rest === '' && child !== null) {
      // A block below the name: a nested object's members, or a list's items.
      if ((child.types & T_OBJECT) !== 0 && child.properties !== null && i < lines.length && nextIndent(lines, i) > line.indent) {
        const nested = readObject(lines, i, line.indent, model, child);
        if (nested.count > 0) {
          value[name] = nested.value;
          count++;
          i = nested.next;
          continue;
        }
      }
      if ((child.types & T_ARRAY) !== 0) {
        const items: unknown[] = [];
        // YAML writes a list under its name at the name's indentation; under a name that is itself
        // a list item (`- tags:`), the list is indented deeper.
        const least = BULLET.test(line.text) ? line.indent + 1 : line.indent;
        while (i < lines.length && (lines[i]!.text === '' || lines[i]!.indent >= least)) {
          const b = BULLET.exec(lines[i]!.text);
          if (b === null) {
            if (lines[i]!.text === '') {
              i++;
              continue;
            }
            break;
          }
          // `- notes: x` where the object declares `notes`: the list has ended.
          const member = MEMBER.exec(b[1]!);
          if (member !== null && member[2] !== undefined && declaredNameFor(e, member[1]!.trim(), value) !== undefined) break;
          items.push(itemOf(b[1]!, elementOf(model, child, items.length)));
          i++;
        }
        if (items.length > 0) {
          value[name] = items;
          count++;
          continue;
        }
      }
    }
    // Several members on one line (`name: Ann, age: 30`): split where a declared name and `:` follow a comma.
    let text = rest;
    let at = name;
    let childAt = child;
    NEXT_MEMBER.lastIndex = 0;
    for (let n = NEXT_MEMBER.exec(text); n !== null; n = NEXT_MEMBER.exec(text)) {
      const next = declaredNameFor(e, n[1]!.trim(), value) ?? (e.properties?.has(n[1]!) === true ? n[1] : undefined);
      if (next === undefined || next === at) continue;
      count += setRead(value, at, valueOf(text.slice(0, n.index), childAt, model));
      text = text.slice(n.index + n[0].length);
      NEXT_MEMBER.lastIndex = 0;
      at = next;
      childAt = model.member(e, next);
    }
    count += setRead(value, at, valueOf(text, childAt, model));
  }
  return { value, next: i, count, position };
}

/** The schema of element `k` under `e`, or null when nothing declares one. */
function elementOf(model: SchemaModel, e: Effective, k: number): Effective | null {
  return e.arrays === null ? null : model.element(e, k);
}

/** Sets a member read whole (1), or leaves out one that was not (0). */
function setRead(target: Record<string, unknown>, name: string, value: unknown): number {
  if (value === UNREAD || (Array.isArray(value) && value.includes(UNREAD))) return 0;
  target[name] = value;
  return 1;
}

function nextIndent(lines: Line[], i: number): number {
  while (i < lines.length && lines[i]!.text === '') i++;
  return i < lines.length ? lines[i]!.indent : -1;
}

/** A member's value text read towards its declared type (`e`): a list splits at its commas. */
function valueOf(text: string, e: Effective | null, model: SchemaModel): unknown {
  let t = text.trim();
  if (t.endsWith(',') || t.endsWith(';')) t = t.slice(0, -1).trimEnd();
  if (e !== null && (e.types & T_ARRAY) !== 0 && (e.types & T_STRING) === 0) {
    const json = jsonOf(t);
    if (Array.isArray(json)) return json;
    const items = splitList(t);
    return items.map((item, k) => scalarOf(item, elementOf(model, e, k)));
  }
  return scalarOf(t, e);
}

/**
 * A list's items: split at commas, a last `and`/`or` taken off; in a list of short items the last
 * one's `and`/`or` joins two items (`red, green and blue`), as a reader of the sentence reads it.
 * Brackets around the whole list (`[a, b]`, Python's `('a', 'b')`: not JSON, or it would have been
 * read as such) enclose it; they are not part of its first and last items.
 */
function splitList(text: string): string[] {
  const enclosed = ENCLOSED_LIST.exec(text);
  const items = (enclosed === null ? text : enclosed[1] ?? enclosed[2]!).split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length > 1) {
    const last = items[items.length - 1]!.replace(/^(?:and|or)\s+/i, '');
    const joined = items.every((item) => item.length <= SHORT_ITEM) ? LAST_TWO.exec(last) : null;
    if (joined !== null) items.splice(items.length - 1, 1, joined[1]!, joined[2]!);
    else items[items.length - 1] = last;
  }
  return items;
}

// `[a, b]`, `(a, b)`: brackets around the whole list and none inside it
const ENCLOSED_LIST = /^\[([^[\](){}]*)\]$|^\(([^[\](){}]*)\)$/;
// `green and blue`: two items of one to three words joined by `and`/`or`/`&`
const LAST_TWO = /^((?:\S+ ){0,2}\S+) (?:and|or|&) ((?:\S+ ){0,2}\S+)$/i;
const SHORT_ITEM = 40;

/**
 * One value's text: JSON when it is JSON (`30`, `"Ann"`, `true`, `[1, 2]`), quotes taken off a
 * single-quoted one, yes/no as a boolean where a boolean is declared, otherwise the text whole.
 */
function scalarOf(text: string, e: Effective | null): unknown {
  const t = text.trim();
  const json = jsonOf(t);
  // JSON as written; the schema pass coerces it where another type is declared (`30` for a string).
  if (json !== undefined && !(json === null && e !== null && (e.types & T_STRING) !== 0)) return json;
  if (t.length >= 2 && (t[0] === "'" || t[0] === '`') && t[t.length - 1] === t[0]) return t.slice(1, -1);
  // A double-quoted value its line does not close (`"An`, cut; `"one⏎two"`, over lines): not read.
  if (t[0] === '"') return UNREAD;
  if (e !== null && (e.types & T_BOOLEAN) !== 0 && (e.types & T_STRING) === 0) {
    if (YES.test(t)) return true;
    if (NO.test(t)) return false;
  }
  return t;
}

/** A list item: its value, or its text whole. */
function itemOf(text: string, e: Effective | null): unknown {
  const v = scalarOf(text, e);
  return v === UNREAD ? text.trim() : v;
}

function jsonOf(t: string): unknown {
  const c = t.charCodeAt(0);
  // " [ { - digit t f n
  if (!(c === 0x22 || c === 0x5b || c === 0x7b || c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e)) return undefined;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A markdown list's items (the first list; a labelled one-line list when there is none), read towards `items`. */
function readList(lines: Line[], items: Effective | null): LinesReading | null {
  const out: unknown[] = [];
  let position = -1;
  let base = -1;
  let doubtful = false;
  let ended = false;
  for (const line of lines) {
    if (line.text === '') continue;
    const b = BULLET.exec(line.text);
    if (b === null) {
      if (out.length > 0) ended = true;
      continue;
    }
    if (ended) {
      // A second list after prose: which one is the answer is a choice.
      doubtful = true;
      break;
    }
    if (base < 0) {
      base = line.indent;
      position = line.start;
    }
    if (line.indent > base) {
      // A nested item: not an element of this list.
      doubtful = true;
      continue;
    }
    out.push(itemOf(stripEmphasis(b[1]!), items));
  }
  if (out.length > 0) return { value: out, position, doubtful };
  // No list: the last labelled line of comma-separated words.
  for (let k = lines.length - 1; k >= 0; k--) {
    const m = LABELLED_LIST.exec(lines[k]!.text);
    if (m === null) continue;
    let t = m[1]!.trim();
    if (t.endsWith('.')) t = t.slice(0, -1);
    return { value: splitList(t).map((s) => itemOf(s, items)), position: lines[k]!.start, doubtful: false };
  }
  return null;
}

/** `**apple**` → `apple`: emphasis around a whole item is markdown, not text. */
function stripEmphasis(text: string): string {
  const m = /^(\*\*|__|`)(.+)\1$/.exec(text.trim());
  return m === null ? text : m[2]!;
}

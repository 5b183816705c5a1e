// The shape almost every chunk of a streamed answer has: one choice, no finish_reason, and a delta
// that is a single content string or a single tool call's `arguments` string. Such a chunk is
// recognised by its text alone and its one string spliced, instead of parsing and writing the whole
// chunk again: that parse and write cost ten times the healer's own push. Anything else returns
// null and goes the general way (stream-rewriter.ts).

export interface DeltaShape {
  choice: number;
  /** The tool call's index, or -1 for content. */
  tool: number;
  /** Where the string's characters start and end (between its quotes) in the chunk's text. */
  start: number;
  end: number;
  /** The chunk ends right after the choices array: it carries nothing but this delta. */
  bare: boolean;
}

const CHOICES = '"choices":[{"index":';
const DELTA = ',"delta":{';
const CONTENT = '"content":"';
const TOOL = '"tool_calls":[{"index":';
const ARGUMENTS = ',"function":{"arguments":"';
const CHOICE_END = ',"logprobs":null,"finish_reason":null}]';

/**
 * Whether `text` holds `literal` at `at`. A slice compared with `===` (a memcmp), not startsWith:
 * in Node 20 startsWith walks a long literal character by character, which made recognising a
 * chunk cost more than healing it (bench/gateway: 1.5 µs → 0.5 µs a chunk).
 */
function has(text: string, at: number, literal: string): boolean {
  return text.slice(at, at + literal.length) === literal;
}

/** Reads a small non-negative integer at `at`; returns [value, end] or null. */
function integerAt(text: string, at: number): [number, number] | null {
  let value = 0;
  let k = at;
  for (; k < text.length && k - at < 6; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x30 || c > 0x39) break; // not a digit 0-9
    value = value * 10 + (c - 0x30);
  }
  return k === at ? null : [value, k];
}

/** The end of the JSON string whose characters start at `at` (the index of its closing quote), or -1. */
function stringEnd(text: string, at: number): number {
  for (let k = at; k < text.length; k++) {
    switch (text.charCodeAt(k)) {
      case 0x5c: // backslash: the next character is escaped
        k++;
        break;
      case 0x22: // quotation mark
        return k;
    }
  }
  return -1;
}

/** True when `choices` is a member of the chunk's top-level object: no other brace is open before it. */
function atTopLevel(text: string, before: number): boolean {
  if (text.charCodeAt(0) !== 0x7b) return false; // `{`
  for (let k = 1; k < before; k++) {
    switch (text.charCodeAt(k)) {
      case 0x22: // quotation mark: skip the string
        k = stringEnd(text, k + 1);
        if (k < 0) return false;
        break;
      case 0x7b: // `{`
      case 0x5b: // `[`
        return false;
    }
  }
  return true;
}

/**
 * Recognises chunks of one stream: the members before `choices` (id, object, created, model) are
 * the same in every chunk, so the head checked last is remembered and only compared after.
 */
export class DeltaShapes {
  #head = '';

  of(text: string): DeltaShape | null {
    const head = this.#head;
    let at = head.length;
    if (at === 0 || !has(text, 0, head) || !has(text, at, CHOICES)) {
      at = text.indexOf(CHOICES);
      if (at < 0 || !atTopLevel(text, at)) return null;
      this.#head = text.slice(0, at);
    }
    return shapeAfter(text, at);
  }
}

function shapeAfter(text: string, at: number): DeltaShape | null {
  const choice = integerAt(text, at + CHOICES.length);
  if (choice === null || !has(text, choice[1], DELTA)) return null;
  let k = choice[1] + DELTA.length;
  let tool = -1;
  if (has(text, k, CONTENT)) k += CONTENT.length;
  else if (has(text, k, TOOL)) {
    const index = integerAt(text, k + TOOL.length);
    if (index === null || !has(text, index[1], ARGUMENTS)) return null;
    tool = index[0];
    k = index[1] + ARGUMENTS.length;
  } else return null;
  const end = stringEnd(text, k);
  if (end < 0) return null;
  const close = tool < 0 ? '"}' : '"}}]}';
  if (!has(text, end, close) || !has(text, end + close.length, CHOICE_END)) return null;
  const tail = end + close.length + CHOICE_END.length;
  return { choice: choice[0], tool, start: k, end, bare: text.length === tail + 1 && text.charCodeAt(tail) === 0x7d };
}

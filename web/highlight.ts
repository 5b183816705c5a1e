// Splits the input into text and marks at the positions repairs report, for the playground's
// "input with repairs marked" view. Pure (no DOM) so it is tested directly. A position is a
// UTF-16 offset of the repair's first occurrence; the mark covers the whole character there (both
// halves of a surrogate pair), or is an empty insertion mark at the end of the input (a closed
// bracket, a completed literal). Several repairs at one position share one mark.

export interface MarkedRepair {
  /** Index in the answer's repairs_applied list. */
  index: number;
  type: string;
  position: number;
}

export interface Segment {
  text: string;
  /** Present on marks: the repairs reported at this position, in answer order. */
  repairs?: MarkedRepair[];
  position?: number;
}

export function segmentsFor(input: string, repairs: readonly MarkedRepair[]): Segment[] {
  const byPosition = new Map<number, MarkedRepair[]>();
  for (const repair of repairs) {
    if (!Number.isInteger(repair.position) || repair.position < 0) continue;
    const position = Math.min(repair.position, input.length);
    const list = byPosition.get(position) ?? [];
    list.push(repair);
    byPosition.set(position, list);
  }
  const positions = [...byPosition.keys()].sort((a, b) => a - b);
  const segments: Segment[] = [];
  let cursor = 0;
  for (const position of positions) {
    if (position < cursor) {
      // Inside the previous mark's character (a surrogate pair): report it on that mark.
      segments[segments.length - 1]!.repairs!.push(...byPosition.get(position)!);
      continue;
    }
    if (position > cursor) segments.push({ text: input.slice(cursor, position) });
    const width = characterWidth(input, position);
    segments.push({ text: input.slice(position, position + width), repairs: byPosition.get(position)!, position });
    cursor = position + width;
  }
  if (cursor < input.length) segments.push({ text: input.slice(cursor) });
  return segments;
}

function characterWidth(input: string, position: number): number {
  if (position >= input.length) return 0;
  const code = input.charCodeAt(position);
  const next = input.charCodeAt(position + 1);
  return code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/** 1-based line and column of a UTF-16 offset, for people reading the list of repairs. */
export function lineAndColumn(input: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, input.length);
  for (let i = 0; i < end; i++) {
    if (input.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

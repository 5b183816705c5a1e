// Python's set literal, `{1, 2, 3}`, `{'a', 'b'}`: braces whose items are values with no colon. The
// first member decides (structure.ts expectKey, expectColon): a quoted string, a number or a literal
// followed by `,` or `}` opens a set, read as the array of its items in order — a reading chosen
// (JSON has no sets, and the braces say object), so medium. A colon after a later item shows the
// braces held an object after all: today's reading of such an object stands (the items before that
// name are members with no value, dropped). Each change here costs O(1): nothing is read again.
import { type Frame, SET_NONE, SET_READ } from './phases.js';
import type { Scanner } from './scanner.js';

/**
 * The first member of the `{` on top of the stack (`top`) is a name: the `{` opened an object. The
 * sink's call is behind its own test: a batch repair (no sink, nothing held back) never makes it,
 * so V8 does not inline showOpen into the fast lane, whose inlining budget its hot paths need.
 */
export function namedFirstMember(s: Scanner, top: Frame): void {
  top.set = SET_NONE;
  if (s.openPending) s.showOpen(false); // openPending only ever set with a sink
}

/**
 * The `{` on top of the stack opened a Python set: from here it is an array, and its `}` closes it
 * (structure.ts closeBracket). `firstAt`: the input offset of its first item.
 */
export function readAsSet(s: Scanner, firstAt: number): void {
  const top = s.stack[s.stack.length - 1]!;
  const items: unknown[] = [];
  s.placeLast(s.stack[s.stack.length - 2], items); // where its parent holds it
  top.container = items;
  top.isArray = true;
  top.set = SET_READ;
  top.key = undefined;
  top.keyPos = firstAt;
  // repair: a Python set (`{1, 2}`, `{'a', 'b'}`) is the array of its items — a reading chosen: medium
  s.log.record('converted_set_to_array', top.openAt);
  if (s.sink !== null) {
    // A stream shows the set as an array from here; it has shown nothing of the `{` yet.
    if (!s.showOpen(true)) s.sink.diverge();
  }
}

/**
 * A colon after an item of a set (`{"x", "y": 1}`, `{1, 2: 3}`): the braces held an object after
 * all. The set reading is taken back, the items before are members with no value (dropped, as
 * `{"x", "y": 1}` always read), and the object goes on with `key` as its next name (when the string
 * being read is the name, the caller makes it so).
 */
export function setToObject(s: Scanner, key?: string, keyPos = 0): void {
  const top = s.stack[s.stack.length - 1]!;
  const members: Record<string, unknown> = {};
  s.placeLast(s.stack[s.stack.length - 2], members);
  top.container = members;
  top.isArray = false;
  top.set = SET_NONE;
  top.members = 0;
  top.memoHits = 0;
  top.lastKey = '';
  s.log.retract('converted_set_to_array');
  // repair: the items before the name are members with no value, dropped
  s.log.record('removed_member_without_value', top.keyPos);
  if (s.sink !== null) s.sink.diverge();
  top.key = key;
  top.keyPos = keyPos;
}

// The key memo: per nesting depth, the names of the last object closed there, as V8's internalized
// strings. Sibling objects (rows of an array) repeat their names, and so do the replies of one
// caller (the same schema, call after call): a name that matches the memo is taken from it without
// a slice, and the property store skips V8's string-table lookup — measured, a fresh slice as a key
// costs ~50 ns more per member, the tenth of a 1 KB reply's repair that the content check had cost.
//
// A scanner reads the table the last scanners in this thread wrote (SHARED_MEMO), so a reply of a
// shape seen before reads its first object as fast as its rows. Only names are shared, never a value,
// and a memo is a hint: every use checks the name against the text, character for character, so a
// stream whose memo another stream rewrote between two pushes only reads slower. The shared table is
// bounded (SHARED_DEPTH × SHARED_MEMBERS names of at most SHARED_NAME characters); a scanner that
// closes a wider object takes a copy of its own first (copy on write), and its names stay there.
export type KeyMemo = Array<Array<string | undefined> | undefined>;

const SHARED_DEPTH = 16;
const SHARED_MEMBERS = 64;
const SHARED_NAME = 64;
export const SHARED_MEMO: KeyMemo = [];

/**
 * Records the names of an object closed at `depth` (1: the root) in `memo`, a scanner's table, and
 * returns that table: the shared one while the names fit it, else the scanner's own copy.
 */
export function memoOf(obj: object, depth: number, memo: KeyMemo): KeyMemo {
  const keys: Array<string | undefined> = Object.keys(obj);
  let shareable = depth < SHARED_DEPTH && keys.length <= SHARED_MEMBERS;
  for (let k = 0; k < keys.length; k++) {
    const name = keys[k]!;
    if (name.length > SHARED_NAME) shareable = false;
    if (needsEscape(name)) keys[k] = undefined; // the memo is matched against the name as written
  }
  const own = shareable || memo !== SHARED_MEMO ? memo : SHARED_MEMO.slice();
  own[depth] = keys;
  return own;
}

/** Whether a name holds `"`, `\` or a control character (a loop: names are short, a regex call is not free). */
function needsEscape(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c < 0x20) return true; // " \ control
  }
  return false;
}

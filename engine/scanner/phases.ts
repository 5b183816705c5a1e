// What every part of the scanner shares and none of them owns: the phases (what the scanner
// expects next), the nesting limit and the frame of an open container. A leaf module: the
// scanner's files import it and each other's functions, never scanner.ts, so no import cycle runs
// through the scanner (test/engine/import-graph.test.ts).

/** What the scanner expects next (plain numbers: tap's per-file transpiler cannot inline const enums). */
export const ROOT_START = 0; // before the first value: prose, fences and <think> blocks are skipped
export const VALUE = 1; // a value (array element, member value, or a root after a fence)
export const KEY = 2; // a member name or `}`
export const COLON = 3; // the `:` after a member name
export const AFTER_VALUE = 4; // `,` or the container's closer
export const AFTER_ROOT = 5; // the root value is complete: only whitespace, fences, more roots
export const TRAILING = 6; // text after the JSON: ignored
export const THINK = 7; // inside a <think> block before the JSON
export const DONE = 8;

/**
 * What a stream's held-back token is waiting for, set where a scan reached the window's end inside
 * it (scanner.ts feed reads it): the pieces that cannot end it are kept aside, not read again.
 */
export const HOLD_NONE = 0;
export const HOLD_KEY = 1; // an unquoted member name (scan-word.ts scanKeyWord)
export const HOLD_WORD = 2; // a number, literal or word value (scan-word.ts scanValueWord)
export const HOLD_BARE = 3; // an unquoted value taken as text (scan-word.ts bareValue)
export const HOLD_BLOCK_QUOTE = 4; // a `"""` or `'''` block before its closer (scan-block.ts)
export const HOLD_BLOCK_TICK = 5; // a code block used as a value, before its closing ``` (scan-block.ts)

/**
 * Deepest nesting accepted. JSON.stringify (and so every consumer of the result) recurses and
 * overflows somewhere past 4,000 levels on Node 20; no real model output nests past a few dozen.
 */
export const MAX_DEPTH = 1000;

/**
 * Whether a `{` opened a Python set (structure.ts readAsSet): its first member decides. A set's
 * first item is a quoted string, a number or a literal followed by `,` or `}`, not by `:`.
 */
export const SET_NONE = 0; // an array, or an object whose first member showed it is one
export const SET_OPEN = 1; // a `{` whose first member has not been read
export const SET_QUOTED = 2; // a `{` whose first member is a quoted string: what follows it decides
export const SET_READ = 3; // an array read from a Python set (`{1, 2}`): `}` closes it

export interface Frame {
  container: Record<string, unknown> | unknown[];
  isArray: boolean;
  /** The member name waiting for its value (objects only). */
  key: string | undefined;
  /** The name of the member set last (`"a" + "b"` replaces its value; key order cannot tell it). */
  lastKey: string;
  keyPos: number;
  /** Members set so far (objects): the index into the key memo for the next name. */
  members: number;
  /** Names taken from the key memo: when every member's was, the memo still describes this object. */
  memoHits: number;
  /** An object the writer opened with `[` (scan-string.ts fixContainerAround): `]` closes it. */
  bracketed: boolean;
  /** An array the writer opened with `(` (a Python tuple): `)` closes it. */
  tuple: boolean;
  /** SET_NONE, SET_OPEN, SET_QUOTED or SET_READ: whether a `{` opened a Python set. */
  set: number;
  /** Input offset of the container's opening bracket. */
  openAt: number;
}

/**
 * What a stream's progressive preview (engine/preview/) is told as the scanner builds its value: the
 * scanner calls it, when one is set, at each place its tree changes. `diverge` says the tree changed
 * in a way a preview cannot follow without taking back what it showed (a repair that rewrote values
 * already built): the preview stops there, and the stream's finalize carries the answer.
 */
export interface ValueSink {
  /** A container opened as a member (`key`: its name in an object) or as the root. */
  open(isArray: boolean, key: string | undefined): void;
  /**
   * A string that is not a name opened (scan-string.ts startString: the scanner is in it, its text
   * so far in strParts). Strings read whole in one piece by the fast lane give no such call.
   */
  stringStart(): void;
  /** A finished scalar was set as a member (`key`: its name in an object) or as the root. */
  value(value: unknown, key: string | undefined): void;
  /** The value set last was replaced (`"a" + "b"`, digit groups, an array read as an object). */
  replace(value: unknown): void;
  /** The innermost container closed. */
  close(): void;
  diverge(): void;
}

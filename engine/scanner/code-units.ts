// The scanner's per-character loops (the fast lane, string bodies, whitespace and comments,
// prose) read the window's UTF-16 code units from a Uint16Array instead of calling charCodeAt per
// character. In a loop V8 compiles charCodeAt to a check of the string's representation (one-byte
// or two-byte, flat, sliced, cons) on every call; a typed array is one bounds-checked load.
// Measured on the malformed megabyte of bench/engine: a loop over every character 2.8-3.3 ms with
// charCodeAt, 1.4-1.6 ms copying into the array first (the copy itself, a native UTF-16 write,
// 0.04 ms).
//
// Past the window's end the array holds SENTINELS zeros, so a fast-lane loop that runs off the end
// stops there as it stopped at NaN from charCodeAt: 0 is a control character, which ends every run
// the lane reads (whitespace, digits, names, string bodies). The lane checks the window's length
// wherever the end differs from a NUL in the text; the other loops check `i < length` themselves.

/** Zeros written after the window; every loop in the fast lane stops at the first. */
export const SENTINELS = 8;

/** Windows up to this many code units reuse one array; a larger one gets its own, dropped with its scanner. */
const SHARED_UNITS = 64 * 1024;

export interface Utf16Writer {
  write(text: string, offset: number, encoding: 'utf16le'): number;
}

type BufferFrom = (buffer: ArrayBuffer, byteOffset: number, length: number) => Utf16Writer;

// Node's Buffer writes a string's UTF-16 in one native call. The engine also runs where there is
// no Buffer (a bundler, a browser): it then copies with charCodeAt, no faster than before.
const bufferFrom: BufferFrom | undefined = (globalThis as { Buffer?: { from: BufferFrom } }).Buffer?.from;

const shared = new Uint16Array(SHARED_UNITS + SENTINELS);
const sharedWriter = writerFor(shared);

/**
 * A larger window reuses the last large array while it is big enough and still alive: allocating
 * (zeroing) a fresh one and touching its new pages on the copy took ~6% of the repair of a 2 MB
 * reply (bench/engine families). It is held weakly, so a thread that stops reading large replies
 * gives it back at the next full collection; windows past LARGEST_REUSED get an array of their own.
 */
interface LargeUnits {
  units: Uint16Array;
  writer: Utf16Writer | undefined;
}
const LARGEST_REUSED = 8 * 1024 * 1024;
let large: WeakRef<LargeUnits> | null = null;

function writerFor(units: Uint16Array): Utf16Writer | undefined {
  return bufferFrom === undefined ? undefined : bufferFrom(units.buffer as ArrayBuffer, units.byteOffset, units.byteLength);
}

/**
 * The code units of `text` followed by SENTINELS zeros. Small windows share one array: the result
 * is valid until the next call, so a scanner loads it once per feed and drops it when the feed ends.
 */
export function codeUnitsOf(text: string): Uint16Array {
  const length = text.length;
  let units: Uint16Array;
  let writer: Utf16Writer | undefined;
  if (length <= SHARED_UNITS) {
    units = shared;
    writer = sharedWriter;
  } else {
    const reused = largeUnits(length);
    units = reused.units;
    writer = reused.writer;
  }
  writeCodeUnits(text, units, writer);
  return units;
}

/** An array for a window of `length` code units past SHARED_UNITS: the large one kept, or a new one (a quarter to spare, so a window a little longer reuses it). */
function largeUnits(length: number): LargeUnits {
  const kept = large?.deref();
  if (kept !== undefined && kept.units.length >= length + SENTINELS) return kept;
  const reused = length <= LARGEST_REUSED;
  const units = new Uint16Array((reused ? Math.min(length + (length >> 2), LARGEST_REUSED) : length) + SENTINELS);
  const made = { units, writer: writerFor(units) };
  if (reused) large = new WeakRef(made);
  return made;
}

/** Copies text's code units and the sentinels into `units`; `writer` undefined copies with charCodeAt. */
export function writeCodeUnits(text: string, units: Uint16Array, writer: Utf16Writer | undefined): void {
  const length = text.length;
  if (writer !== undefined) writer.write(text, 0, 'utf16le');
  else for (let k = 0; k < length; k++) units[k] = text.charCodeAt(k);
  units.fill(0, length, length + SENTINELS);
}

// Test-only behaviour of pool workers, armed by JSONMEND_TEST_HOOKS=1 and inert otherwise. An input
// holding a marker makes the worker misbehave, so tests can prove the server survives it:
//   __JSONMEND_TEST_CRASH__          the worker exits (process.exit in a worker ends that thread)
//   __JSONMEND_TEST_SLEEP_MS=<n>__   the worker blocks n ms (at most 60 s) before repairing
//   __JSONMEND_TEST_BUSY_MS=<n>__    the worker reports its schema compile n ms dearer, as a busy
//                                    machine's wall-clock reading would be (inline-schema-gate.ts)
export const CRASH_MARKER = '__JSONMEND_TEST_CRASH__';
export const SLEEP_MARKER = '__JSONMEND_TEST_SLEEP_MS=';
export const BUSY_MARKER = '__JSONMEND_TEST_BUSY_MS=';
export const CRASH_EXIT_CODE = 70;

const crash = Buffer.from(CRASH_MARKER);
const sleep = Buffer.from(SLEEP_MARKER);
const busy = Buffer.from(BUSY_MARKER);

/** The number after `marker` in `bytes` (at most 5 digits), or 0 when the marker is absent. */
function markerMs(bytes: Buffer, marker: Buffer): number {
  const at = bytes.indexOf(marker);
  if (at === -1) return 0;
  const digits = /^[0-9]{1,5}/.exec(bytes.subarray(at + marker.length, at + marker.length + 5).toString('latin1'));
  return Number(digits?.[0] ?? 0);
}

/** What the busy marker adds to a compile reading (ms); read before the body is handed on. */
export function busyReadingMs(body: Uint8Array): number {
  return markerMs(Buffer.from(body.buffer, body.byteOffset, body.byteLength), busy);
}

export function applyTestHooks(body: Uint8Array): void {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.indexOf(crash) !== -1) process.exit(CRASH_EXIT_CODE);
  const ms = Math.min(markerMs(bytes, sleep), 60_000);
  if (ms === 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Test-only behaviour of pool workers, armed by JSONMEND_TEST_HOOKS=1 and inert otherwise. An input
// holding a marker makes the worker misbehave, so tests can prove the server survives it:
//   __JSONMEND_TEST_CRASH__          the worker exits (process.exit in a worker ends that thread)
//   __JSONMEND_TEST_SLEEP_MS=<n>__   the worker blocks n ms (at most 60 s) before repairing
export const CRASH_MARKER = '__JSONMEND_TEST_CRASH__';
export const SLEEP_MARKER = '__JSONMEND_TEST_SLEEP_MS=';
export const CRASH_EXIT_CODE = 70;

const crash = Buffer.from(CRASH_MARKER);
const sleep = Buffer.from(SLEEP_MARKER);

export function applyTestHooks(body: Uint8Array): void {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.indexOf(crash) !== -1) process.exit(CRASH_EXIT_CODE);
  const at = bytes.indexOf(sleep);
  if (at === -1) return;
  const digits = /^[0-9]{1,5}/.exec(bytes.subarray(at + sleep.length, at + sleep.length + 5).toString('latin1'));
  const ms = Math.min(Number(digits?.[0] ?? 0), 60_000);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

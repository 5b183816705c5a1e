#!/usr/bin/env node
// npm run test:loaded [-- tap arguments]: the suite on a busy machine. Starts one spinning process
// per core (or SPINNERS=N), runs tap with the given arguments (none: the whole suite), stops every
// spinner by pid whatever happens, and exits with tap's status. A test that passes quietly but
// fails here races the clock: assert with bounds from measured time, or wait for an event.
// Plain JavaScript so it runs without a build, like ensure-built.mjs.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const count = Number(process.env.SPINNERS ?? availableParallelism());
if (!Number.isInteger(count) || count < 0) {
  console.error(`SPINNERS must be a whole number, not ${process.env.SPINNERS}`);
  process.exit(2);
}
const spinners = Array.from({ length: count }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopSpinners = () => { for (const s of spinners) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL'); };
process.on('exit', stopSpinners);
console.log(`test:loaded: ${count} spinning processes (pids ${spinners.map((s) => s.pid).join(', ')})`);

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
// Its own process group, so a signal reaches tap and its test processes, not only npx.
const tap = spawn(npx, ['tap', ...process.argv.slice(2)], { stdio: 'inherit', detached: process.platform !== 'win32' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    try { process.kill(process.platform === 'win32' ? tap.pid : -tap.pid, signal); } catch { /* already gone */ }
    stopSpinners();
    process.exit(130);
  });
}
tap.on('exit', (code, signal) => {
  stopSpinners();
  process.exit(code ?? (signal ? 1 : 0));
});

// The whole machine's CPU, from the first line of /proc/stat: what the bench's advice needs to tell
// "other jobs were busy during this row" from "this run kept the machine busy". The 1-minute load
// average cannot: right after a previous row (or another bench) it still counts that work.
import { readFileSync } from 'node:fs';

/** Clock ticks per second in /proc/stat (USER_HZ): 100 on every Linux the bench runs on. */
const TICKS_PER_SECOND = 100;

/**
 * Seconds of CPU the machine has spent busy (all cores together: user, nice, system, irq, softirq,
 * steal) since boot; undefined where /proc/stat cannot be read (not Linux).
 */
export function machineBusySeconds(): number | undefined {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'latin1').slice(0, 256).split('\n', 1)[0]!;
  } catch {
    return undefined;
  }
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 5) return undefined;
  const ticks = fields.slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const busy = ticks[0]! + ticks[1]! + ticks[2]! + (ticks[5] ?? 0) + (ticks[6] ?? 0) + (ticks[7] ?? 0);
  return Number.isFinite(busy) ? busy / TICKS_PER_SECOND : undefined;
}

// A deadline for the engine's own work: a caller that must answer in time (a server worker shared
// by other callers) gives repair() or a stream a time limit, and work past it stops with
// WORK_DEADLINE_EXCEEDED instead of running on. The engine is synchronous, so the deadline of the
// call in progress is module state, set for that call and restored after it; the scanner and the
// schema alignment look at the clock every CHECK_EVERY steps, so checking costs nothing measurable.
import { makeError } from './error-codes.js';
import type { RepairError } from './types.js';

const CHECK_EVERY = 1024;

let current = Infinity;
let countdown = CHECK_EVERY;

/** Thrown where the engine's work passed its deadline; repair() answers it as an error. */
export class DeadlineExceededError extends Error {
  readonly code = 'WORK_DEADLINE_EXCEEDED';
  constructor(readonly limitMs: number | null) {
    super('The engine passed its deadline.');
  }

  /** The error the caller answers with. */
  toRepairError(): RepairError {
    const within = this.limitMs === null ? '' : ` within ${Math.round(this.limitMs)} ms`;
    return makeError('WORK_DEADLINE_EXCEEDED', `The repair did not finish${within} and was stopped.`);
  }
}

/** Runs `work` with `deadline` (a Date.now() time; undefined: none) as the current one. */
export function withDeadline<T>(deadline: number | undefined, work: () => T): T {
  if (deadline === undefined || !(deadline < current)) return work();
  const outer = current;
  current = deadline;
  countdown = 1; // look at the clock on the first step: a deadline already past stops at once
  try {
    return work();
  } finally {
    current = outer;
  }
}

/**
 * One step of work: every CHECK_EVERY steps, throws if the current deadline has passed. Kept to a
 * decrement and a test (the clock in lookAtClock): the scanner's fast lane calls it per token, and
 * V8 charges what it inlines against that loop's inlining budget (its string and number readers).
 */
export function tickDeadline(): void {
  if (--countdown <= 0) lookAtClock();
}

function lookAtClock(): void {
  countdown = CHECK_EVERY;
  if (current !== Infinity && Date.now() > current) throw new DeadlineExceededError(null);
}

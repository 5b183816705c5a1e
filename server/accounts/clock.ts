// Every time decision in the accounts layer reads this clock, so tests can move time instead of
// waiting for it (an hour-long demo window, a 90-day retention) and production reads Date.now().

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and benches. */
export class ManualClock implements Clock {
  #now: number;
  constructor(startMs: number = Date.UTC(2025, 0, 15, 12, 0, 0)) { this.#now = startMs; }
  now(): number { return this.#now; }
  set(ms: number): void { this.#now = ms; }
  advance(ms: number): void { this.#now += ms; }
}

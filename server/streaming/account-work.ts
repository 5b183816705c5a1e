// How much streaming work one account may have at the workers at once, so one tenant's burst (a
// dozen 5 MB finalizes at once, from one key or from several of its account's keys) cannot fill a
// worker's queue ahead of every other tenant (docs/streaming.md "One tenant's load"). Per account,
// on this node, in flight (sent to a worker, not yet answered): at most `maxCalls` calls and
// `maxBytes` bytes of work (a push costs its chunk, a finalize its buffer), but always one call.
// Further calls wait here in arrival order; what they hold is already bounded by the account's
// sessions (each buffer at most MAX_PAYLOAD_BYTES, all of them within the buffer budget), so the
// wait needs no bound of its own. Another tenant's call thus waits behind at most `maxCalls` of
// this account's calls, not behind its whole burst. A leaf module: it knows accounts and bytes.

/** A call to a streaming worker, gated by its account. */
export interface GatedCall {
  readonly accountId: string;
  /** UTF-8 bytes of work: the chunk (push), the buffer (finalize), 0 (open). */
  readonly cost: number;
  /** Sends the call to its worker. Called once; must not answer synchronously (done() would re-enter). */
  dispatch(): void;
}

interface Ledger {
  calls: number;
  bytes: number;
  waiting: GatedCall[] | null;
}

export class AccountWork {
  readonly #accounts = new Map<string, Ledger>();
  /** Calls that had to wait here (counter, for /metrics). */
  waited = 0;

  constructor(readonly maxCalls: number, readonly maxBytes: number) {}

  /** Dispatches `call` now if its account has room in flight, else once its earlier calls are answered. */
  submit(call: GatedCall): void {
    let work = this.#accounts.get(call.accountId);
    if (work === undefined) {
      work = { calls: 0, bytes: 0, waiting: null };
      this.#accounts.set(call.accountId, work);
    }
    if (work.waiting === null && this.#fits(work, call.cost)) {
      work.calls++;
      work.bytes += call.cost;
      call.dispatch();
      return;
    }
    (work.waiting ??= []).push(call);
    this.waited++;
  }

  /** A dispatched call was answered (or its worker died): the account's next waiting calls go. */
  done(call: GatedCall): void {
    const work = this.#accounts.get(call.accountId);
    if (work === undefined) return;
    work.calls--;
    work.bytes -= call.cost;
    while (work.waiting !== null && this.#fits(work, work.waiting[0]!.cost)) {
      const next = work.waiting.shift()!;
      if (work.waiting.length === 0) work.waiting = null;
      work.calls++;
      work.bytes += next.cost;
      next.dispatch();
    }
    if (work.calls === 0 && work.waiting === null) this.#accounts.delete(call.accountId);
  }

  #fits(work: Ledger, cost: number): boolean {
    return work.calls === 0 || (work.calls < this.maxCalls && work.bytes + cost <= this.maxBytes);
  }
}

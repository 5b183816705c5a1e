// How fast pushes may come. A streaming session counts against its account's per-minute rate and
// monthly quota once, at `start`; its pushes are bounded here instead, by two token buckets (GCRA,
// as rate-limiter.ts): one per session, sized for a model's token stream (STREAM_PUSH_RATE per
// second, bursts of STREAM_PUSH_BURST), and one per account across all its sessions on this node,
// scaled from its tier (Tier.streamPushesPerSecond, a one-second burst), so opening many sessions
// buys no more pushes than the tier allows. Times are performance.now() ms. docs/streaming.md
// "Push rate" documents the numbers.

/** A session's or an account's bucket: its theoretical arrival time (ms). */
export interface PushBucket {
  pushTat: number;
}

export interface PushRateSettings {
  /** Pushes per second one session may sustain. */
  sessionPerSecond: number;
  /** Pushes one session may send at once after a pause. */
  sessionBurst: number;
}

/** Refused: which bucket was empty and how long until a push would pass (ms, > 0). */
export interface PushRefusal {
  scope: 'session' | 'account';
  waitMs: number;
}

/** Accounts whose buckets are kept; past it, full buckets (which hold no information) are swept. */
const MAX_ACCOUNTS = 100_000;

/**
 * The GCRA test for one bucket: the wait in ms (0: allowed now), not yet taking the token.
 * `intervalMs` spaces pushes at the rate; a burst of `burst` may come at once.
 */
function waitOf(bucket: PushBucket, now: number, intervalMs: number, burst: number): number {
  const tat = Math.max(bucket.pushTat, now);
  const over = tat + intervalMs - now - burst * intervalMs;
  return over > 0 ? over : 0;
}

function take(bucket: PushBucket, now: number, intervalMs: number): void {
  bucket.pushTat = Math.max(bucket.pushTat, now) + intervalMs;
}

export class PushRate {
  readonly #accounts = new Map<string, PushBucket>();
  readonly #sessionInterval: number;

  constructor(readonly settings: PushRateSettings) {
    this.#sessionInterval = 1000 / settings.sessionPerSecond;
  }

  /**
   * Takes one push from `session`'s bucket and from its account's (`accountPerSecond` null: the
   * account is not bounded, only the session), or refuses and takes nothing.
   */
  admit(session: PushBucket, accountId: string, accountPerSecond: number | null, now: number): PushRefusal | null {
    const sessionWait = waitOf(session, now, this.#sessionInterval, this.settings.sessionBurst);
    if (sessionWait > 0) return { scope: 'session', waitMs: sessionWait };
    let account: PushBucket | undefined;
    if (accountPerSecond !== null) {
      account = this.#account(accountId, now);
      const interval = 1000 / accountPerSecond;
      const accountWait = waitOf(account, now, interval, accountPerSecond);
      if (accountWait > 0) return { scope: 'account', waitMs: accountWait };
      take(account, now, interval);
    }
    take(session, now, this.#sessionInterval);
    return null;
  }

  #account(accountId: string, now: number): PushBucket {
    let bucket = this.#accounts.get(accountId);
    if (bucket !== undefined) return bucket;
    if (this.#accounts.size >= MAX_ACCOUNTS) {
      for (const [id, b] of this.#accounts) if (b.pushTat <= now) this.#accounts.delete(id);
    }
    bucket = { pushTat: now };
    this.#accounts.set(accountId, bucket);
    return bucket;
  }
}

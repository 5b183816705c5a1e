// Counts requests in flight so a shutdown can wait for them, and tells handlers when the server
// is draining (answers then close their connection, so keep-alive clients move elsewhere).
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long the server must see no new request before a drain counts as done. A client that sent a
 * request on an idle keep-alive connection just before the signal has it in flight though the
 * server has not read it yet; without this window the pool would close under it.
 */
export const DRAIN_QUIET_MS = 200;

export class Lifecycle {
  inflight = 0;
  draining = false;
  /** Requests begun since start: a drain compares it across its quiet window. */
  #begun = 0;
  #onIdle: (() => void) | null = null;

  begin(): void {
    this.inflight++;
    this.#begun++;
  }

  end(): void {
    this.inflight--;
    if (this.draining && this.inflight === 0 && this.#onIdle !== null) {
      const resolve = this.#onIdle;
      this.#onIdle = null;
      resolve();
    }
  }

  /** Resolves once no request is in flight and none has begun for `quietMs`. */
  async drain(quietMs = DRAIN_QUIET_MS): Promise<void> {
    this.draining = true;
    for (;;) {
      if (this.inflight > 0) {
        await new Promise<void>((resolve) => {
          this.#onIdle = resolve;
        });
      }
      const begunBefore = this.#begun;
      await sleep(quietMs);
      if (this.inflight === 0 && this.#begun === begunBefore) return;
    }
  }
}

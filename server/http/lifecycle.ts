// Counts requests in flight so a shutdown can wait for them, and tells handlers when the server
// is draining (answers then close their connection, so keep-alive clients move elsewhere).
export class Lifecycle {
  inflight = 0;
  draining = false;
  #onIdle: (() => void) | null = null;

  begin(): void {
    this.inflight++;
  }

  end(): void {
    this.inflight--;
    if (this.draining && this.inflight === 0 && this.#onIdle !== null) this.#onIdle();
  }

  /** Resolves once no request is in flight. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#onIdle = resolve;
    });
  }
}

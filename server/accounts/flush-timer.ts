// The unref'd interval that the batching stores (quota counters, the metadata log) flush on:
// started once, stopped at shutdown; a failed flush goes to the store's error handler.
export class FlushTimer {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => { this.flush().catch(this.onError); }, this.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

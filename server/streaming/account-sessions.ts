// Open streaming sessions per account (KeyRecord.accountId): what the per-tier bound counts. This
// one lives in one process's memory; a store shared by several nodes can take its place behind
// the same three calls.
export interface AccountSessionCounts {
  count(accountId: string): number;
  opened(accountId: string): void;
  closed(accountId: string): void;
}

export class LocalAccountSessionCounts implements AccountSessionCounts {
  readonly #open = new Map<string, number>();

  count(accountId: string): number {
    return this.#open.get(accountId) ?? 0;
  }

  opened(accountId: string): void {
    this.#open.set(accountId, (this.#open.get(accountId) ?? 0) + 1);
  }

  closed(accountId: string): void {
    const left = (this.#open.get(accountId) ?? 1) - 1;
    if (left <= 0) this.#open.delete(accountId);
    else this.#open.set(accountId, left);
  }
}

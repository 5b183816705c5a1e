// METRICS_TOKEN: the bearer token of the operator's endpoints (GET /metrics, /health's details).
// Compared as SHA-256 digests with timingSafeEqual, so neither the time nor the lengths compared
// depend on how much of a guess is right.
import { timingSafeEqual } from 'node:crypto';
import { bearerCredential } from '../accounts/authenticate.js';
import { keyDigest } from '../accounts/api-key.js';

export class OperatorToken {
  readonly #digest: Buffer | null;

  constructor(token: string | null) {
    this.#digest = token === null ? null : keyDigest(token);
  }

  /** False when METRICS_TOKEN is unset. */
  get configured(): boolean {
    return this.#digest !== null;
  }

  /** The Authorization header carries the configured token (never true when none is configured). */
  presentedIn(authorization: string): boolean {
    if (this.#digest === null) return false;
    const credential = bearerCredential(authorization);
    return credential !== null && timingSafeEqual(keyDigest(credential), this.#digest);
  }
}

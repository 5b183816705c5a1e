// The owner's half of "a forward is accepted once" (docs/scaling.md "Between nodes"). Each
// forwarding client names itself with a random sender id at start and numbers its requests 1, 2, 3…;
// the signed nonce is `<sender>:<sequence>`. Per sender the owner keeps the highest sequence seen
// and a bitmap of the WINDOW sequences below it (the anti-replay window of IPsec, RFC 4303 3.4.3):
// a sequence seen before, or older than the window, is refused. Forwards overtake each other on
// parallel connections, never by WINDOW, so a genuine one is not refused. In memory, no Redis round
// trip: 8 KiB per sender, and a sender silent for SENDER_TTL_MS is forgotten — by then every
// request it sent is outside the signature's time window and refused anyway.
import { PEER_CLOCK_WINDOW_MS } from './peer-signature.js';

const WINDOW = 1 << 16;
const WORDS = WINDOW >>> 5;
/** Twice the clock window (a request is valid from time - window to time + window) and a margin. */
export const SENDER_TTL_MS = 3 * PEER_CLOCK_WINDOW_MS;
const NONCE = /^([A-Za-z0-9_-]{8,43}):([1-9][0-9]{0,14})$/;

class SenderWindow {
  highest = 0;
  readonly seen = new Uint32Array(WORDS);
  lastAcceptedAt = 0;

  accept(sequence: number): boolean {
    if (sequence > this.highest) {
      if (sequence - this.highest >= WINDOW) this.seen.fill(0);
      else for (let s = this.highest + 1; s < sequence; s++) this.#clear(s);
      this.highest = sequence;
      this.#set(sequence);
      return true;
    }
    if (this.highest - sequence >= WINDOW) return false;
    const word = (sequence % WINDOW) >>> 5;
    const bit = 1 << (sequence & 31);
    if ((this.seen[word]! & bit) !== 0) return false;
    this.seen[word]! |= bit;
    return true;
  }

  #set(sequence: number): void {
    this.seen[(sequence % WINDOW) >>> 5]! |= 1 << (sequence & 31);
  }

  #clear(sequence: number): void {
    this.seen[(sequence % WINDOW) >>> 5]! &= ~(1 << (sequence & 31));
  }
}

export class PeerReplayGuard {
  readonly #senders = new Map<string, SenderWindow>();
  #lastSweep = 0;

  /** True the first time a well-formed nonce is offered; false for a repeat, a too-old or a malformed one. */
  accept(nonce: string, now = performance.now()): boolean {
    const match = NONCE.exec(nonce);
    if (match === null) return false;
    if (now - this.#lastSweep > PEER_CLOCK_WINDOW_MS) this.#sweep(now);
    let window = this.#senders.get(match[1]!);
    if (window === undefined) {
      window = new SenderWindow();
      this.#senders.set(match[1]!, window);
    }
    if (!window.accept(Number(match[2]))) return false;
    window.lastAcceptedAt = now;
    return true;
  }

  get senders(): number {
    return this.#senders.size;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [sender, window] of this.#senders) if (now - window.lastAcceptedAt > SENDER_TTL_MS) this.#senders.delete(sender);
  }
}

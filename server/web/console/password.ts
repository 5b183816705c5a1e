// Password hashing with scrypt (node:crypto) and a random 16-byte salt per user. Stored as
// `scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64url), so the cost can be raised later and old hashes
// still verify. N=2^15, r=8, p=3 is one of OWASP's scrypt settings: 32 MiB per hash, about 100 ms
// of one core per p-lane here (docs/web.md). scrypt runs on libuv's thread pool, never on the event
// loop; a gate bounds how many run at once (each holds 32 MiB) and how many may wait.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost { log2N: number; r: number; p: number }

export const DEFAULT_COST: ScryptCost = Object.freeze({ log2N: 15, r: 8, p: 3 });
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const FORMAT = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/;

export class HasherBusy extends Error {
  constructor() {
    super('too many password hashes waiting');
    this.name = 'HasherBusy';
  }
}

export interface PasswordHasherOptions {
  cost?: ScryptCost;
  /** Hashes computed at once (each holds 128 * N * r bytes). */
  concurrency?: number;
  /** Hashes allowed to wait for a slot; beyond that hash() rejects with HasherBusy. */
  maxWaiting?: number;
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const N = 2 ** cost.log2N;
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error === null ? resolve(key) : reject(error)));
  });
}

export class PasswordHasher {
  readonly cost: ScryptCost;
  readonly #concurrency: number;
  readonly #maxWaiting: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  /** Verified against when the email is unknown, so a miss costs as long as a wrong password. */
  #decoy: Promise<string> | null = null;

  constructor(options: PasswordHasherOptions = {}) {
    this.cost = Object.freeze({ ...(options.cost ?? DEFAULT_COST) });
    this.#concurrency = options.concurrency ?? 2;
    this.#maxWaiting = options.maxWaiting ?? 32;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.#gated(() => derive(password, salt, this.cost));
    const { log2N, r, p } = this.cost;
    return `scrypt$ln=${log2N},r=${r},p=${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  /** False for a wrong password or a stored hash this code cannot read. */
  async verify(password: string, stored: string): Promise<boolean> {
    const parts = FORMAT.exec(stored);
    if (parts === null) return false;
    const cost: ScryptCost = { log2N: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) };
    if (cost.log2N < 10 || cost.log2N > 20 || cost.r < 1 || cost.p < 1) return false;
    const expected = Buffer.from(parts[5]!, 'base64url');
    const key = await this.#gated(() => derive(password, Buffer.from(parts[4]!, 'base64url'), cost));
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  /** Burns one verification's time for a login whose email matched nobody. Always false. */
  async verifyDecoy(password: string): Promise<false> {
    this.#decoy ??= this.hash(randomBytes(12).toString('base64url'));
    await this.verify(password, await this.#decoy);
    return false;
  }

  async #gated<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.#concurrency) {
      this.#running++;
    } else {
      if (this.#waiting.length >= this.#maxWaiting) throw new HasherBusy();
      // The finishing hash hands its slot over, so #running stays the same.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#running--;
    }
  }
}

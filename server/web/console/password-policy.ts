// What a new console password must be: 8 to 128 characters (code points), not blank, not one
// character repeated or two taken turns ('aaaaaaaa', 'abababab'), and not one of the passwords
// guessers try first (common-passwords.ts), also when dressed up with trailing digits and symbols
// ('Password123!'). Checked at sign-up only: a sign-in compares with what is stored, nothing more.
import { COMMON_PASSWORDS } from './common-passwords.js';

export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_LENGTH = 128;
/** Fewer different characters than this is a pattern, not a password. */
const MIN_DISTINCT = 3;
const TRAILING_DIGITS_AND_SYMBOLS = /[\d\p{P}\p{S}\s]+$/u;

/** Why `raw` is refused as a new password (a sentence for the user), or null when it will do. */
export function passwordProblem(raw: unknown): string | null {
  if (typeof raw !== 'string') return 'Enter a password.';
  const chars = [...raw];
  if (chars.length < PASSWORD_MIN_CHARS || raw.length > PASSWORD_MAX_LENGTH) {
    return `Use a password of ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_LENGTH} characters.`;
  }
  if (raw.trim() === '') return 'A password of only spaces is too easy to guess.';
  if (new Set(chars).size < MIN_DISTINCT) return 'A password of one or two characters repeated is too easy to guess.';
  const lower = raw.normalize('NFKC').toLowerCase();
  const base = lower.replace(TRAILING_DIGITS_AND_SYMBOLS, '');
  if (COMMON_PASSWORDS.has(lower) || COMMON_PASSWORDS.has(lower.trim()) || (base !== '' && COMMON_PASSWORDS.has(base))) {
    return 'This password is one of the most common ones, which are guessed first; choose another.';
  }
  return null;
}

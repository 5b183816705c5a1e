// How long an API key may be. Here, below every layer, because API_KEYS parsing refuses a longer
// key at start-up and the key stores refuse one per request without hashing it.

/** Longest key accepted anywhere; bounds the hashing work an Authorization header can cause. */
export const MAX_KEY_LENGTH = 256;

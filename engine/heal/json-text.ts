// Reading canonical or valid JSON text that the healer already knows is well formed.

/** The offset of the quote that closes the string opened by the quote at `k` (`\` escapes the next character). */
export function stringEnd(text: string, k: number): number {
  for (k++; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x5c) k++; // \ escapes the next character
    else if (c === 0x22) return k; // "
  }
  return k;
}

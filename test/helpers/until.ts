// The suite's one way to wait for something another process does: poll the condition with a
// generous deadline and let the caller assert on the time it took (docs/internals/testing.md).

/** Polls `check` every 20 ms; resolves with the ms it took, or Infinity past `limitMs`. */
export async function msUntil(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > limitMs) return Infinity;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

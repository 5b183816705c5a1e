// Human-readable figures for benchmark tables: a duration picks its unit, a rate keeps 3 significant digits.

export function formatDuration(ns: number): string {
  if (!Number.isFinite(ns)) return 'n/a';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e9).toPrecision(3)} s`;
}

export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 10 ** digits) return Math.round(value).toString();
  return value.toPrecision(digits);
}

export function formatBytes(bytes: number): string {
  // Thresholds just below the unit, so 999,674 bytes reads "1.00 MB", not "1.00e+3 KB".
  if (bytes < 999.5) return `${bytes} B`;
  if (bytes < 999_500) return `${(bytes / 1e3).toPrecision(3)} KB`;
  return `${(bytes / 1e6).toPrecision(3)} MB`;
}

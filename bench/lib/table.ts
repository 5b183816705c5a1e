// Prints rows as an aligned plain-text table (also valid Markdown, so a run can be pasted into docs).

export type Cell = string | number;

export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => row.map((cell) => String(cell)));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(headers), rule, ...text.map(line)].join('\n');
}

export function printTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): void {
  process.stdout.write(`${renderTable(headers, rows)}\n`);
}

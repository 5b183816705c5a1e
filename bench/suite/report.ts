// The bench's one table, and the notes under it.
import { LOADGEN_BOUND_CORES } from '../lib/load.js';
import type { Row } from './rows.js';
import { wrap } from './advice.js';

export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return Math.round(ms).toString();
}

export function formatRate(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return value >= 100 ? Math.round(value).toString() : value.toPrecision(3);
}

function result(row: Row): string {
  if (row.status === 'unavailable') return 'n/a';
  if (row.status !== 'measured') return 'FAIL';
  if (row.pass === null) return '-';
  return row.pass ? 'pass' : 'FAIL';
}

/** The terminal width the table and notes are made for (details stay in the results file). */
export const REPORT_WIDTH = 96;

const HEADERS = ['row', 'conn', 'req/s', 'p50 ms', 'p99 ms', 'ref/fail', 'echo', 'cores srv/http/lg', 'result'];
const RIGHT = new Set([1, 2, 3, 4, 5, 6]);

/** One line per row, columns two spaces apart; rows are named by id (labels in the legend below). */
export function renderRows(rows: readonly Row[]): string {
  const cells = rows.map((row) => {
    const measured = row.status === 'measured';
    const http = row.httpThreadCores === undefined ? '-' : row.httpThreadCores.toFixed(2);
    return [
      row.id,
      String(row.connections),
      measured ? formatRate(row.requestsPerSecond) : '-',
      formatMs(row.latency?.p50),
      formatMs(row.latency?.p99),
      measured ? `${row.refused}/${row.failed}` : '-',
      row.echoFraction === undefined || row.echoFraction === null ? '-' : `${Math.round(row.echoFraction * 100)}%`,
      measured ? `${row.serverCores!.toFixed(2)}/${http}/${row.loadgenCores!.toFixed(2)}` : '-',
      result(row),
    ];
  });
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string =>
    c.map((cell, i) => (RIGHT.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(HEADERS), ...cells.map(line)].join('\n');
}

export function renderNotes(rows: readonly Row[], width = REPORT_WIDTH): string {
  const lines = [
    'conn: autocannon connections. ref/fail: HTTP 200 answers that said SERVICE_UNAVAILABLE / any other failure ' +
      '(read from the body). echo: req/s over a bare uWS echo server with the same body and connections.',
    `cores srv/http/lg: CPU cores used by the server (all threads) / its HTTP thread / the load generator; ` +
      `the load generator at >= ${LOADGEN_BOUND_CORES} core was the bound, not the server.`,
    'Targets, latency percentiles, MB/s and µs per answer are in the results file.',
    ...rows.map((row) => `${row.id}: ${row.label}${row.reason === undefined ? '' : ` (${row.status}: ${row.reason})`}${row.note === undefined ? '' : `; ${row.note}`}`),
  ];
  return lines.map((line) => wrap(line, width, '  ')).join('\n');
}

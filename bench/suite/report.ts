// The bench's one table, and the notes under it.
import { renderTable } from '../lib/table.js';
import { LOADGEN_BOUND_CORES } from '../lib/load.js';
import type { Row } from './rows.js';

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
  if (row.status === 'unavailable') return 'unavailable';
  if (row.status !== 'measured') return `FAIL (${row.status})`;
  if (row.pass === null) return '-';
  if (row.pass) return 'pass';
  return `FAIL (${row.targets.filter((t) => !t.pass).map((t) => t.text).join('; ')})`;
}

const HEADERS = [
  'scenario', 'conn/pipe', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'errors', 'non-2xx', 'refused/failed',
  'of echo', 'MB/s repaired', 'cores srv/lg', 'srv µs/req', 'bound', 'target', 'result',
];

export function renderRows(rows: readonly Row[]): string {
  const cells = rows.map((row) => {
    const measured = row.status === 'measured';
    return [
      row.label,
      `${row.connections}/${row.pipelining}`,
      measured ? formatRate(row.requestsPerSecond) : '-',
      formatMs(row.latency?.p50),
      formatMs(row.latency?.p90),
      formatMs(row.latency?.p99),
      formatMs(row.latency?.p999),
      measured ? String(row.errors) : '-',
      measured ? String(row.non2xx) : '-',
      measured ? `${row.refused}/${row.failed}` : '-',
      row.echoFraction === undefined || row.echoFraction === null ? '-' : `${Math.round(row.echoFraction * 100)}%`,
      measured && (row.inputMBps ?? 0) > 0 ? formatRate(row.inputMBps) : '-',
      measured ? `${row.serverCores!.toFixed(2)}/${row.loadgenCores!.toFixed(2)}` : '-',
      row.serverMicrosPerRequest === undefined ? '-' : formatRate(row.serverMicrosPerRequest),
      row.bound ?? '-',
      row.targets.map((t) => t.text).join('; ') || '-',
      result(row),
    ];
  });
  return renderTable(HEADERS, cells);
}

export function renderNotes(rows: readonly Row[]): string {
  const lines = [
    `conn/pipe: autocannon connections / pipelining. refused/failed: HTTP 200 answers that said SERVICE_UNAVAILABLE / any other failure (read from the body).`,
    `cores srv/lg: CPU cores used by the server / by the load generator (this process) during the run. bound: "loadgen" when autocannon used >= ${LOADGEN_BOUND_CORES} core`,
    `  (it is single-threaded, so the server was not the limit), "cpu" when server + load generator filled the machine.`,
    `srv µs/req: server CPU time per answer (all its threads), steadier than req/s when other jobs share the machine.`,
    `of echo: req/s over the echo server's, measured just before the row with the same body and connections (the start/end echo rows show the drift).`,
    `MB/s repaired: input megabytes (10^6 bytes) of repaired requests per second (echo rows: echoed).`,
  ];
  for (const row of rows) {
    if (row.reason !== undefined) lines.push(`- ${row.label}: ${row.status}: ${row.reason}`);
    if (row.note !== undefined) lines.push(`- ${row.label}: ${row.note}`);
  }
  return lines.join('\n');
}

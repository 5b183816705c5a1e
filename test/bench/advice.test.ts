// The bench's report: a table that fits a terminal, and for each row that missed its target one
// line naming the likely cause and the setting to try, judged from the row's own measurements.
import t from 'tap';
import { adviseRow, renderAdvice } from '../../bench/suite/advice.js';
import { REPORT_WIDTH, renderNotes, renderRows } from '../../bench/suite/report.js';
import type { Row } from '../../bench/suite/rows.js';

const QUIET = { cores: 2, loadavgStart: 0.3 };

function row(overrides: Partial<Row>): Row {
  return {
    id: 'malformed-1kb', label: 'malformed 1 KB LLM reply [1.0 KB]', connections: 50, pipelining: 1, status: 'measured',
    requestsPerSecond: 9000, latency: { p50: 4.1, p90: 5.2, p99: 7.9, p999: 12 }, responses: 27000, errors: 0, non2xx: 0,
    refused: 0, failed: 0, echoFraction: 0.55, serverCores: 0.9, httpThreadCores: 0.5, loadgenCores: 0.6, bound: '-', loadavg: 0.4,
    targets: [{ text: 'p99 < 5 ms', pass: false }, { text: '>= 60% of echo', pass: false }], pass: false, ...overrides,
  };
}

t.test('a passing row gets no advice', async (t) => {
  t.equal(adviseRow(row({ pass: true, targets: [{ text: 'p99 < 5 ms', pass: true }] }), QUIET), null);
  t.equal(adviseRow(row({ pass: null, targets: [] }), QUIET), null);
  t.equal(renderAdvice([row({ pass: true })], QUIET, REPORT_WIDTH), 'every row met its target');
});

t.test('each cause names what the run measured and the setting to try', async (t) => {
  const loadgen = adviseRow(row({ loadgenCores: 0.97, bound: 'loadgen' }), QUIET)!;
  t.match(loadgen, /load generator used 0\.97 cores/);
  t.notMatch(loadgen, /WORKERS|QUEUE_MAX/, 'a run the load generator bound says nothing about the settings');

  const busy = adviseRow(row({ loadavg: 3.4, serverCores: 0.6, loadgenCores: 0.5 }), QUIET)!;
  t.match(busy, /Other jobs kept about 2\.3 of the 2 cores busy \(load average 3\.4 less this run's own 1\.10 cores\)/);
  t.match(adviseRow(row({}), { cores: 2, loadavgStart: 1.5 })!, /Other jobs kept about 1\.5/, 'busy before the run');
  // the machine's CPU during the row, where it was read, judges instead of the load average
  const measuredBusy = adviseRow(row({ machineCores: 1.95, serverCores: 0.6, loadgenCores: 0.3 }), { cores: 2, loadavgStart: 3.5 })!;
  t.match(measuredBusy, /Other jobs kept about 1\.1 of the 2 cores busy \(the machine's CPU during the row 1\.95 cores less this run's own 0\.90 cores\)/);
  const afterOtherWork = adviseRow(row({ machineCores: 1.6, loadavg: 3.2, serverCores: 1.05, httpThreadCores: 0.95, loadgenCores: 0.5 }), { cores: 2, loadavgStart: 3.0 })!;
  t.match(afterOtherWork, /HTTP thread used 0\.95 cores/, 'a load average left by earlier work is not blamed on others when the row measured the machine');
  const own = adviseRow(row({ loadavg: 1.9, serverCores: 1.05, httpThreadCores: 0.95, loadgenCores: 0.5 }), QUIET)!;
  t.match(own, /HTTP thread used 0\.95 cores/, 'a load average the run made itself is not blamed on others');

  const refused = adviseRow(row({ refused: 120 }), QUIET)!;
  t.match(refused, /120 answers refused \(SERVICE_UNAVAILABLE/);
  t.match(refused, /WORKERS/);
  t.match(refused, /PROCESSES/);

  const failed = adviseRow(row({ failed: 3 }), QUIET)!;
  t.match(failed, /3 failed answers/);

  const http = adviseRow(row({ httpThreadCores: 0.96 }), QUIET)!;
  t.match(http, /HTTP thread used 0\.96 cores/);
  t.match(http, /INLINE_MAX_BYTES/);
  t.match(http, /PROCESSES=<cores> with REDIS_URL/);

  const cpu = adviseRow(row({ serverCores: 1.3, loadgenCores: 0.6, bound: 'cpu' }), QUIET)!;
  t.match(cpu, /filled the 2 cores/);

  const pool = adviseRow(row({}), QUIET)!;
  t.match(pool, /the pool was the limit/);
  t.match(pool, /QUEUE_MAX/);

  t.match(adviseRow(row({ id: 'overload-accepted', refused: 500 }), QUIET)!, /lower QUEUE_MAX/, 'refusals are the point of the overload rows');
  t.match(adviseRow(row({ status: 'error', reason: 'the server exited' }), QUIET)!, /the server exited/);
});

t.test('the table, the advice and the notes fit the report width', async (t) => {
  const rows = [
    row({ id: 'echo-1kb', label: 'uWS echo, 1 KB body (ceiling)', httpThreadCores: 0.99, targets: [], pass: null, requestsPerSecond: 21345, echoFraction: null }),
    row({ refused: 12345, failed: 67 }),
    row({ id: 'overload-recovery', label: 'overload: right after the load stops (1 conn.)', connections: 1, httpThreadCores: undefined, note: 'first request after the load: repaired in 3.1 ms; first repair 0 ms after the load stopped, after 0 refusals' }),
    row({ id: 'demo-1kb', label: 'demo endpoint 1 KB (DEMO_LIMIT_PER_HOUR=1000000) [1.0 KB]', status: 'unavailable', reason: 'x '.repeat(80), pass: null }),
  ];
  const text = [renderRows(rows), renderAdvice(rows, QUIET, REPORT_WIDTH), renderNotes(rows)].join('\n');
  for (const line of text.split('\n')) t.ok(line.length <= REPORT_WIDTH, `${line.length} <= ${REPORT_WIDTH}: ${line}`);
  t.match(renderRows(rows), /12345\/67/, 'refused and failed answers are counted in the table');
  t.match(renderRows(rows), /0\.90\/-\/0\.60/, 'a row without an HTTP thread figure says so');
});

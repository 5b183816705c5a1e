// `npm run bench`: every scenario in order against the servers this run starts, then the overload
// phase, into one list of rows. Echo rows run first and again at the end (their spread shows how
// much the neighbours' load moved); each jsonmend row's fraction of echo is taken against a short
// echo run with the same body and connections made just before it, so both see the same neighbours.
import { cpus, loadavg } from 'node:os';
import { runLoad, type LoadStats } from '../lib/load.js';
import { overloadPlannedSeconds, runOverload, type OverloadTimes } from './overload.js';
import { generateKey, startEcho, startJsonmend, type ServerProcess } from '../../support/server-process.js';
import { Progress, type Step } from './progress.js';
import { gitState, machineAtStart, round2, type RunResults } from './results.js';
import { measuredRow, unmeasuredRow, type Row } from './rows.js';
import { DEMO_LIMIT_PER_HOUR, scenarios, type Scenario } from './scenarios.js';
import { verifyScenario } from './verify.js';

export interface BenchOptions {
  quick: boolean;
  /** Scenario ids to run (default: all); the overload phase has id "overload". */
  only: readonly string[] | null;
}

const TIMES = {
  full: { seconds: 12, warmupSeconds: 3, pairSeconds: 5, pairWarmupSeconds: 1, overload: { probeSeconds: 3, seconds: 12, warmupSeconds: 2 } },
  quick: { seconds: 3, warmupSeconds: 1, pairSeconds: 1.5, pairWarmupSeconds: 0.5, overload: { probeSeconds: 1.5, seconds: 3, warmupSeconds: 1 } },
} satisfies Record<string, { seconds: number; warmupSeconds: number; pairSeconds: number; pairWarmupSeconds: number; overload: OverloadTimes }>;
const START_SECONDS = 3; // a server start, a check request, the pause after the warm-up

type Slot = { scenario: Scenario; stats: LoadStats; pairedEcho: number | null; loadavg: number } | { row: Row };

function ceilingOf(scenario: Scenario, echoRps: Map<string, number>): number | null {
  const values = scenario.ceiling.map((id) => echoRps.get(id)).filter((v): v is number => v !== undefined);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

export async function runBench(options: BenchOptions): Promise<RunResults> {
  const times = options.quick ? TIMES.quick : TIMES.full;
  const selected = (id: string): boolean => options.only === null || options.only.includes(id);
  const all = scenarios();
  const list = all.filter((s) => selected(s.id));
  const withOverload = selected('overload');
  const pairedWith = (scenario: Scenario): Scenario | undefined =>
    scenario.server === 'jsonmend' ? all.find((s) => s.id === scenario.ceiling[0]) : undefined;
  const steps: Step[] = list.map((s) => ({
    label: s.label,
    seconds: times.seconds + times.warmupSeconds + START_SECONDS + (pairedWith(s) === undefined ? 0 : times.pairSeconds + times.pairWarmupSeconds + 0.5),
  }));
  if (withOverload) steps.push({ label: 'overload', seconds: overloadPlannedSeconds(times.overload) + START_SECONDS });

  const cores = cpus().length;
  const machine = machineAtStart();
  const git = gitState();
  const startedAt = new Date();
  const key = generateKey();
  const jsonmendEnv = { API_KEYS: `${key}:unlimited`, DEMO_LIMIT_PER_HOUR: String(DEMO_LIMIT_PER_HOUR) };
  const progress = new Progress(steps);
  const slots: Slot[] = [];
  const echoRps = new Map<string, number>();
  let echo: ServerProcess | null = null;
  let jsonmend: ServerProcess | null = null;
  try {
    for (const [index, scenario] of list.entries()) {
      progress.begin(index);
      const base = { id: scenario.id, label: scenario.label, connections: scenario.connections, pipelining: scenario.pipelining, note: scenario.note };
      try {
        const server = scenario.server === 'echo' ? (echo ??= await startEcho()) : (jsonmend ??= await startJsonmend(jsonmendEnv));
        const verdict = await verifyScenario(server.url, key, scenario);
        if (verdict.kind !== 'ok') {
          slots.push({ row: unmeasuredRow(base, verdict.kind === 'unavailable' ? 'unavailable' : 'wrong answer', verdict.reason, scenario.targets) });
          continue;
        }
        const pair = pairedWith(scenario);
        let pairedEcho: number | null = null;
        if (pair !== undefined) {
          progress.begin(index, 'echo ceiling alongside');
          echo ??= await startEcho();
          const ceiling = await runLoad(echo, {
            url: echo.url, requests: pair.requests(key), connections: pair.connections, pipelining: pair.pipelining,
            seconds: times.pairSeconds, warmupSeconds: times.pairWarmupSeconds, settleMs: 0,
          });
          pairedEcho = ceiling.requestsPerSecond;
          progress.begin(index);
        }
        const stats = await runLoad(server, {
          url: server.url, requests: scenario.requests(key), connections: scenario.connections, pipelining: scenario.pipelining,
          seconds: times.seconds, warmupSeconds: times.warmupSeconds,
        });
        if (scenario.server === 'echo') echoRps.set(scenario.id, stats.requestsPerSecond);
        slots.push({ scenario, stats, pairedEcho, loadavg: round2(loadavg()[0]!) });
      } catch (error) {
        slots.push({ row: unmeasuredRow(base, 'error', (error as Error).message, scenario.targets) });
        // A server that failed mid-run is not reused; the next row starts a fresh one.
        if (scenario.server === 'jsonmend') {
          await jsonmend?.stop();
          jsonmend = null;
        }
      }
    }
    await Promise.all([echo?.stop(), jsonmend?.stop()]);
    echo = jsonmend = null;
    const rows = slots.map((slot): Row => {
      if ('row' in slot) return slot.row;
      const { scenario, stats, pairedEcho } = slot;
      const base = { id: scenario.id, label: scenario.label, connections: scenario.connections, pipelining: scenario.pipelining, note: scenario.note };
      return { ...measuredRow(base, stats, pairedEcho ?? ceilingOf(scenario, echoRps), scenario.targets, cores), loadavg: slot.loadavg };
    });
    let overloadEnv: Record<string, string> | null = null;
    if (withOverload) {
      progress.begin(steps.length - 1);
      try {
        const overload = await runOverload(key, times.overload, cores, (phase) => progress.begin(steps.length - 1, phase));
        rows.push(...overload.rows.map((row) => ({ ...row, loadavg: round2(loadavg()[0]!) })));
        overloadEnv = overload.env;
      } catch (error) {
        rows.push(unmeasuredRow({ id: 'overload', label: 'overload', connections: 0, pipelining: 1 }, 'error', (error as Error).message, []));
      }
    }
    progress.end();
    machine.loadavgEnd = loadavg().map(round2);
    return {
      kind: 'jsonmend-bench',
      mode: options.quick ? 'quick' : 'full',
      date: startedAt.toISOString(),
      git,
      node: process.version,
      machine,
      settings: {
        seconds: times.seconds,
        warmupSeconds: times.warmupSeconds,
        echoAlongsideSeconds: times.pairSeconds,
        overload: { ...times.overload, env: overloadEnv },
        server: {
          command: 'node dist/server/main.js', PORT: '0', HOST: '127.0.0.1', API_KEYS: '<generated>:unlimited',
          DEMO_LIMIT_PER_HOUR, DATA_DIR: '<temporary directory>', others: 'defaults (WORKERS = cores, QUEUE_MAX 32, INLINE_MAX_BYTES 8192, LOG_LEVEL info to a file)',
        },
        loadGenerator: 'autocannon 9, in this process',
      },
      durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
      rows,
    };
  } finally {
    await Promise.all([echo?.stop(), jsonmend?.stop()]);
  }
}

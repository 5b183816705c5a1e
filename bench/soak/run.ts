// Memory soak: the real server under bounded mixed traffic (bench/soak/traffic.ts:
// repairs of every kind, refusals, clients leaving mid-request, streaming sessions finalized and
// abandoned), its RSS and main-thread heap sampled from /metrics, judged flat or not after warm-up.
//   npm run bench:soak [-- --seconds 240 --clients 8 --without kind,kind]     (also `npm run bench -- --soak`)
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createRandom } from '../../support/random.js';
import { renderTable } from '../lib/table.js';
import { generateKey, installCleanup, startJsonmend, stopAll } from '../../support/server-process.js';
import { SoakClient, emptyTally, type TrafficTally } from './traffic.js';

export interface SoakOptions {
  seconds: number;
  clients: number;
  /** Seconds between samples. */
  sampleEvery: number;
  /**
   * Share of the run's requests treated as warm-up (not judged). Counted in requests, not seconds:
   * the heaps of the HTTP thread and of each worker, and the schema caches, fill with the work
   * done, and the request rate varies with whatever else the machine runs.
   */
  warmupShare: number;
  /** Traffic kinds left out of the mix (bench/soak/traffic.ts MIX), e.g. to find what memory follows. */
  without: readonly string[];
  /** Progress lines go here (null: silent). */
  log: ((line: string) => void) | null;
}

export interface SoakSample {
  atSeconds: number;
  requests: number;
  rssMb: number;
  heapMb: number;
  openSessions: number;
  inflight: number;
}

export interface SoakResult {
  options: SoakOptions;
  samples: SoakSample[];
  tally: TrafficTally;
  /** After warm-up: least-squares slope of RSS and heap, MB per minute. */
  rssSlopeMbPerMin: number;
  heapSlopeMbPerMin: number;
  /** Mean RSS of the first and last quarter after warm-up. */
  rssEarlyMb: number;
  rssLateMb: number;
  /**
   * The last quarter's mean RSS within 10% of the first quarter's, after warm-up. (The slope is
   * reported, not judged: RSS swings by tens of MB as the five isolates collect garbage.)
   */
  flat: boolean;
  serverExited: boolean;
}

export const DEFAULT_SOAK: SoakOptions = { seconds: 240, clients: 8, sampleEvery: 3, warmupShare: 0.6, without: [], log: (line) => process.stdout.write(`${line}\n`) };

// Abandoned sessions expire after this, so the session table reaches its steady state within the run.
const SESSION_TTL_MS = 5000;

function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

function slopePerMinute(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((s, [x]) => s + x, 0) / n;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const totalRequests = (tally: TrafficTally): number => Object.values(tally.requests).reduce((s, n) => s + n, 0);

export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakResult> {
  const options: SoakOptions = { ...DEFAULT_SOAK, ...partial };
  const key = generateKey();
  const server = await startJsonmend({
    API_KEYS: `${key}:unlimited`, WORKERS: '2', LOG_LEVEL: 'warn', SESSION_TTL_MS: String(SESSION_TTL_MS),
    DEMO_LIMIT_PER_HOUR: '1000000', TRUST_PROXY: '127.0.0.1',
  });
  const tally = emptyTally();
  const samples: SoakSample[] = [];
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  const stopped = (): boolean => performance.now() >= endAt || server.exited();
  let serverExited = false;
  try {
    const clients = Array.from({ length: options.clients }, (_, i) => new SoakClient(server.url, key, createRandom(1000 + i), tally, options.without).run(stopped));
    while (!stopped()) {
      await new Promise((resolve) => setTimeout(resolve, options.sampleEvery * 1000));
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const sample: SoakSample = {
        atSeconds: Math.round((performance.now() - started) / 100) / 10,
        requests: totalRequests(tally),
        rssMb: gauge(text, 'process_resident_memory_bytes') / 1e6,
        heapMb: gauge(text, 'nodejs_heap_used_bytes') / 1e6,
        openSessions: gauge(text, 'jsonmend_stream_sessions'),
        inflight: gauge(text, 'jsonmend_inflight_requests'),
      };
      samples.push(sample);
      options.log?.(`${sample.atSeconds.toFixed(0).padStart(4)} s  ${String(sample.requests).padStart(7)} requests  RSS ${sample.rssMb.toFixed(1)} MB  heap ${sample.heapMb.toFixed(1)} MB  sessions ${sample.openSessions}`);
    }
    await Promise.all(clients);
  } finally {
    serverExited = server.exited();
    await server.stop();
  }
  const finalRequests = samples.at(-1)?.requests ?? 0;
  const judged = samples.filter((s) => s.requests >= finalRequests * options.warmupShare);
  const quarter = Math.max(1, Math.floor(judged.length / 4));
  const rssEarlyMb = mean(judged.slice(0, quarter).map((s) => s.rssMb));
  const rssLateMb = mean(judged.slice(-quarter).map((s) => s.rssMb));
  const rssSlopeMbPerMin = slopePerMinute(judged.map((s) => [s.atSeconds, s.rssMb]));
  const heapSlopeMbPerMin = slopePerMinute(judged.map((s) => [s.atSeconds, s.heapMb]));
  return {
    options, samples, tally, rssSlopeMbPerMin, heapSlopeMbPerMin, rssEarlyMb, rssLateMb,
    flat: rssLateMb <= rssEarlyMb * 1.1,
    serverExited,
  };
}

export function renderSoak(result: SoakResult): string {
  const { options, tally } = result;
  const rows = result.samples.map((s, i) => {
    const previous = result.samples[i - 1];
    const rate = previous === undefined ? s.requests / s.atSeconds : (s.requests - previous.requests) / (s.atSeconds - previous.atSeconds);
    return [s.atSeconds.toFixed(0), s.requests, rate.toFixed(0), s.rssMb.toFixed(1), s.heapMb.toFixed(1), s.openSessions, s.inflight];
  });
  const mix = Object.entries(tally.requests).map(([kind, n]) => `${kind} ${n}`).join(', ');
  return [
    `soak: ${options.seconds} s, ${options.clients} clients${options.without.length > 0 ? ` without ${options.without.join(', ')}` : ''}, SESSION_TTL_MS=${SESSION_TTL_MS}, warm-up: the first ${Math.round(options.warmupShare * 100)}% of requests (not judged)`,
    renderTable(['s', 'requests', 'req/s', 'RSS MB', 'heap MB', 'open sessions', 'in flight'], rows),
    `requests by kind: ${mix}`,
    `streaming starts refused at MAX_SESSIONS: ${tally.atCapacity}; unexpected answers: ${tally.unexpected}${tally.firstUnexpected === null ? '' : ` (first: ${tally.firstUnexpected})`}`,
    `after warm-up: RSS ${result.rssEarlyMb.toFixed(1)} -> ${result.rssLateMb.toFixed(1)} MB (first vs last quarter), ` +
      `slope RSS ${result.rssSlopeMbPerMin.toFixed(2)} MB/min, heap ${result.heapSlopeMbPerMin.toFixed(2)} MB/min: ${result.flat ? 'FLAT' : 'GROWING'}`,
    result.serverExited ? 'the server EXITED during the soak' : 'the server stayed up',
  ].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, clients: { type: 'string' }, without: { type: 'string' } } });
  installCleanup(() => {});
  const result = await runSoak({
    seconds: values.seconds === undefined ? DEFAULT_SOAK.seconds : Number(values.seconds),
    clients: values.clients === undefined ? DEFAULT_SOAK.clients : Number(values.clients),
    without: values.without?.split(',').map((kind) => kind.trim()) ?? [],
  });
  process.stdout.write(`\n${renderSoak(result)}\n`);
  return result.flat && !result.serverExited && result.tally.unexpected === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then((code) => process.exit(code), async (error: unknown) => {
    process.stderr.write(`soak failed: ${(error as Error).stack ?? String(error)}\n`);
    await stopAll();
    process.exit(2);
  });
}

// The sweep's charts (docs/capacity-<group>.svg): one per setting, x = the setting's values,
// panels for req/s (or answers/s) and p99. Also redraws them from a saved sweep results file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drawChart, type Panel } from './svg-chart.js';
import type { SweepResult } from './sweep.js';
import { sweepPlan, type SweepGroup } from './sweep-plan.js';

export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** A req/s panel spanning more than this ratio is drawn on a log scale, or its low line is flat. */
const LOG_WHEN_RATIO = 20;

function spansDecades(values: readonly (number | null)[]): boolean {
  const positive = values.filter((v): v is number => v !== null && v > 0);
  return positive.length > 1 && Math.max(...positive) / Math.min(...positive) > LOG_WHEN_RATIO;
}

function chartPanels(group: SweepGroup, results: readonly SweepResult[], categories: readonly string[]): Panel[] {
  const mine = results.filter((r) => r.group === group.id);
  const seriesNames = [...new Set(mine.map((r) => r.series))];
  const line = (name: string, pick: (r: SweepResult) => number | undefined) => ({
    name,
    values: categories.map((x) => {
      const found = mine.find((r) => r.x === x && r.series === name && r.status === 'measured');
      const value = found === undefined ? undefined : pick(found);
      return value === undefined || !Number.isFinite(value) ? null : value;
    }),
  });
  if (group.id === 'queue-max' || group.id === 'max-sessions') {
    const name = seriesNames[0]!;
    const refusedLabel = group.id === 'queue-max' ? 'refused (SERVICE_UNAVAILABLE)' : 'refused or failed';
    const served = group.id === 'queue-max' ? 'repaired' : 'served';
    const refused = group.id === 'queue-max' ? (r: SweepResult) => r.refusedPerSecond : (r: SweepResult) => (r.refusedPerSecond ?? 0) + (r.failedPerSecond ?? 0);
    return [
      { title: 'answers per second', series: [{ ...line(name, (r) => r.repairedPerSecond), name: served }, { ...line(name, refused), name: refusedLabel }] },
      { title: 'p99 ms (log scale)', log: true, series: [{ ...line(name, (r) => r.repairedP99), name: served }, ...(group.id === 'queue-max' ? [{ ...line(name, (r) => r.refusedP99), name: 'refused' }] : [])] },
    ];
  }
  const panels: Panel[] = [];
  if (group.id === 'body-size') panels.push({ title: 'input MB/s', series: seriesNames.map((n) => line(n, (r) => r.inputMBps)) });
  const rates = seriesNames.map((n) => line(n, (r) => r.requestsPerSecond));
  const log = spansDecades(rates.flatMap((series) => series.values));
  panels.push({ title: log ? 'req/s (log scale)' : 'req/s', log, series: rates });
  const parts = group.points[0]?.workload.parts;
  if (parts !== undefined) {
    panels.push({ title: 'p99 ms by body size (log scale)', log: true, series: parts.map((part, i) => ({ ...line(seriesNames[0]!, (r) => r.p99ByRequest?.[i]), name: part })) });
  } else {
    panels.push({ title: 'p99 ms (log scale)', log: true, series: seriesNames.map((n) => line(n, (r) => r.p99)) });
  }
  return panels;
}

/** Draws the charts of every group that has one and was measured; returns the files written. */
export function writeSweepCharts(groups: readonly SweepGroup[], results: readonly SweepResult[], sha: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const group of groups) {
    const mine = results.filter((r) => r.group === group.id && r.status === 'measured');
    if (!group.chart || mine.length === 0) continue;
    const loads = mine.map((r) => r.loadavg ?? Number.NaN).filter(Number.isFinite);
    const load = loads.length === 0 ? '' : `, load avg ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
    const categories = [...new Set(group.points.map((p) => p.x))];
    const svg = drawChart({
      title: group.title,
      subtitle: `${group.subtitle}; ${sha}${load}`,
      xLabel: group.xLabel,
      categories,
      panels: chartPanels(group, results, categories),
    });
    const path = join(dir, `capacity-${group.id}.svg`);
    writeFileSync(path, svg);
    written.push(path);
  }
  return written;
}

/** `--charts <file>`: the charts again from a saved sweep, e.g. after a change to their look. */
export function redrawSweepCharts(file: string, dir = DOCS_DIR): string[] {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { kind?: string; git?: { sha: string }; results?: SweepResult[] };
  if (saved.kind !== 'jsonmend-bench-sweep' || !Array.isArray(saved.results)) throw new Error(`${file} is not a sweep results file`);
  return writeSweepCharts(sweepPlan(), saved.results, saved.git?.sha ?? '', dir);
}

// Line charts for docs/capacity.md: one setting along x (its values as categories), one or more
// stacked panels (req/s, p99 ms, ...) sharing that axis, a line per series with each point labelled.
import { Bitmap, type Colour } from './bitmap.js';

export interface Series {
  name: string;
  /** One value per category; null leaves a gap. */
  values: readonly (number | null)[];
}

export interface Panel {
  /** The y axis, with its unit. */
  title: string;
  series: readonly Series[];
  /** Logarithmic y axis, for figures spanning decades. */
  log?: boolean;
}

export interface ChartSpec {
  title: string;
  subtitle: string;
  xLabel: string;
  categories: readonly string[];
  panels: readonly Panel[];
}

const PALETTE: readonly Colour[] = [[31, 119, 180], [230, 110, 0], [44, 160, 44], [214, 39, 40], [148, 103, 189]];
const INK: Colour = [30, 30, 30];
const MUTED: Colour = [110, 110, 110];
const GRID: Colour = [225, 225, 225];
const WIDTH = 960;
const HEADER = 74;
const PANEL_HEIGHT = 270;
const FOOTER = 56;
const LEFT = 96;
const RIGHT = 36;

/** "12k", "1.5k", "250", "2.5", "0.25": short enough for an axis. */
export function shortNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  if (abs >= 100 || abs === 0) return String(Math.round(value));
  return trim(value);
}

function trim(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** Evenly spaced round ticks from 0 to at least `max`. */
function linearTicks(max: number): number[] {
  const top = max > 0 ? max : 1;
  const raw = top / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) ticks.push(10 ** e);
  return ticks;
}

function drawPanel(canvas: Bitmap, panel: Panel, top: number, categories: readonly string[]): void {
  const plotTop = top + 46;
  const plotBottom = top + PANEL_HEIGHT - 24;
  const plotLeft = LEFT;
  const plotRight = WIDTH - RIGHT;
  const values = panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const positive = values.filter((v) => v > 0);
  const log = panel.log === true && positive.length > 0;
  const ticks = log ? logTicks(Math.min(...positive), Math.max(...positive)) : linearTicks(Math.max(0, ...values));
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  const yOf = (v: number): number => {
    const t = log ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1) : (v - lo) / (hi - lo || 1);
    return plotBottom - t * (plotBottom - plotTop);
  };
  const step = (plotRight - plotLeft) / categories.length;
  const xOf = (i: number): number => plotLeft + step * (i + 0.5);

  canvas.text(plotLeft, top + 6, panel.title, INK, 2);
  let legendX = plotRight;
  [...panel.series].reverse().forEach((series, reversedIndex) => {
    const colour = PALETTE[(panel.series.length - 1 - reversedIndex) % PALETTE.length]!;
    legendX -= canvas.textWidth(series.name, 2);
    canvas.text(legendX, top + 26, series.name, colour, 2);
    legendX -= 18;
    canvas.fillRect(legendX, top + 29, 12, 8, colour);
    legendX -= 24;
  });
  for (const tick of ticks) {
    const y = Math.round(yOf(tick));
    canvas.line(plotLeft, y, plotRight, y, GRID);
    canvas.text(plotLeft - 10, y - 7, shortNumber(tick), MUTED, 2, 'right');
  }
  canvas.line(plotLeft, plotTop, plotLeft, plotBottom, INK);
  canvas.line(plotLeft, plotBottom, plotRight, plotBottom, INK);
  categories.forEach((_, i) => canvas.line(xOf(i), plotBottom, xOf(i), plotBottom + 5, INK));

  panel.series.forEach((series, index) => {
    const colour = PALETTE[index % PALETTE.length]!;
    let previous: [number, number] | null = null;
    series.values.forEach((value, i) => {
      if (value === null || !Number.isFinite(value)) {
        previous = null;
        return;
      }
      const point: [number, number] = [xOf(i), yOf(value)];
      if (previous !== null) canvas.line(previous[0], previous[1], point[0], point[1], colour, 3);
      previous = point;
    });
    series.values.forEach((value, i) => {
      if (value === null || !Number.isFinite(value)) return;
      canvas.marker(xOf(i), yOf(value), colour, 9);
      canvas.text(xOf(i) + 8, yOf(value) - 16 + index * 4, shortNumber(value), colour, 1);
    });
  });
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return line === '' ? lines : [...lines, line];
}

export function drawChart(spec: ChartSpec): Buffer {
  const subtitle = wrap(spec.subtitle, Math.floor((WIDTH - LEFT - RIGHT) / 12));
  const header = HEADER + (subtitle.length - 1) * 20;
  const height = header + spec.panels.length * PANEL_HEIGHT + FOOTER;
  const canvas = new Bitmap(WIDTH, height);
  canvas.text(LEFT, 14, spec.title, INK, 3);
  subtitle.forEach((line, i) => canvas.text(LEFT, 46 + i * 20, line, MUTED, 2));
  spec.panels.forEach((panel, i) => drawPanel(canvas, panel, header + i * PANEL_HEIGHT, spec.categories));
  const axisY = header + spec.panels.length * PANEL_HEIGHT - 14;
  const step = (WIDTH - RIGHT - LEFT) / spec.categories.length;
  spec.categories.forEach((category, i) => canvas.text(LEFT + step * (i + 0.5), axisY, category, INK, 2, 'center'));
  canvas.text((LEFT + WIDTH - RIGHT) / 2, axisY + 28, spec.xLabel, INK, 2, 'center');
  return canvas.toPng();
}

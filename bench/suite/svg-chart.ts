// Line charts for docs/capacity.md as SVG text (GitHub shows SVG images inline): one setting along
// x (its values as categories), one or more stacked panels (req/s, p99 ms, ...) sharing that axis, a
// line per series with each point labelled.

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

const PALETTE = ['#1f77b4', '#e66e00', '#2ca02c', '#d62728', '#9467bd'];
const INK = '#1e1e1e';
const MUTED = '#6e6e6e';
const GRID = '#e1e1e1';
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

const escapeXml = (text: string): string => text.replace(/[<>&"]/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot' } as const)[c as '<']};`);
const px = (n: number): string => String(Math.round(n * 10) / 10);

function text(x: number, y: number, content: string, fill: string, size: number, anchor: 'start' | 'middle' | 'end' = 'start'): string {
  return `<text x="${px(x)}" y="${px(y)}" fill="${fill}" font-size="${size}" text-anchor="${anchor}">${escapeXml(content)}</text>`;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, width = 1): string {
  return `<line x1="${px(x1)}" y1="${px(y1)}" x2="${px(x2)}" y2="${px(y2)}" stroke="${stroke}" stroke-width="${width}"/>`;
}

function panelSvg(panel: Panel, top: number, categories: readonly string[]): string[] {
  const out: string[] = [];
  const plotTop = top + 46;
  const plotBottom = top + PANEL_HEIGHT - 24;
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
  const step = (plotRight - LEFT) / categories.length;
  const xOf = (i: number): number => LEFT + step * (i + 0.5);

  out.push(text(LEFT, top + 20, panel.title, INK, 15));
  // The legend, right-aligned: a swatch and the series name each.
  let legendX = plotRight;
  for (let index = panel.series.length - 1; index >= 0; index--) {
    const name = panel.series[index]!.name;
    const colour = PALETTE[index % PALETTE.length]!;
    out.push(text(legendX, top + 38, name, colour, 13, 'end'));
    legendX -= name.length * 6.6 + 16;
    out.push(`<rect x="${px(legendX)}" y="${top + 29}" width="12" height="8" fill="${colour}"/>`);
    legendX -= 24;
  }
  for (const tick of ticks) {
    out.push(line(LEFT, yOf(tick), plotRight, yOf(tick), GRID));
    out.push(text(LEFT - 10, yOf(tick) + 4, shortNumber(tick), MUTED, 12, 'end'));
  }
  out.push(line(LEFT, plotTop, LEFT, plotBottom, INK), line(LEFT, plotBottom, plotRight, plotBottom, INK));
  categories.forEach((_, i) => out.push(line(xOf(i), plotBottom, xOf(i), plotBottom + 5, INK)));

  panel.series.forEach((series, index) => {
    const colour = PALETTE[index % PALETTE.length]!;
    // A gap (null) ends one polyline and the next value starts another.
    let points: string[] = [];
    const flush = (): void => {
      if (points.length > 1) out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${colour}" stroke-width="3"/>`);
      points = [];
    };
    series.values.forEach((value, i) => {
      if (value === null || !Number.isFinite(value)) return flush();
      points.push(`${px(xOf(i))},${px(yOf(value))}`);
      out.push(`<circle cx="${px(xOf(i))}" cy="${px(yOf(value))}" r="4.5" fill="${colour}"/>`);
      out.push(text(xOf(i) + 8, yOf(value) - 8 + index * 4, shortNumber(value), colour, 11));
    });
    flush();
  });
  return out;
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(content: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of content.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  return current === '' ? lines : [...lines, current];
}

export function drawChart(spec: ChartSpec): string {
  const subtitle = wrap(spec.subtitle, Math.floor((WIDTH - LEFT - RIGHT) / 7.5));
  const header = HEADER + (subtitle.length - 1) * 20;
  const height = header + spec.panels.length * PANEL_HEIGHT + FOOTER;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    text(LEFT, 34, spec.title, INK, 22),
    ...subtitle.map((s, i) => text(LEFT, 58 + i * 20, s, MUTED, 13)),
  ];
  spec.panels.forEach((panel, i) => out.push(...panelSvg(panel, header + i * PANEL_HEIGHT, spec.categories)));
  const axisY = header + spec.panels.length * PANEL_HEIGHT;
  const step = (WIDTH - RIGHT - LEFT) / spec.categories.length;
  spec.categories.forEach((category, i) => out.push(text(LEFT + step * (i + 0.5), axisY, category, INK, 13, 'middle')));
  out.push(text((LEFT + WIDTH - RIGHT) / 2, axisY + 28, spec.xLabel, INK, 14, 'middle'), '</svg>');
  return out.join('\n') + '\n';
}

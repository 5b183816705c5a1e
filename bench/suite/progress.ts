// The progress line: which step runs (k of n) and roughly how long is left, so a user knows the
// bench is alive. On a terminal it rewrites one line every second; otherwise (CI logs, pipes) it
// prints one line per step.
export interface Step {
  label: string;
  /** Planned duration in seconds (warm-up, measurement, server start). */
  seconds: number;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export class Progress {
  private index = -1;
  private stepStarted = 0;
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private detail = '';
  private readonly live = process.stderr.isTTY === true;

  constructor(private readonly steps: readonly Step[]) {}

  /** Starts step `index` (0-based); `detail` names a phase inside it. */
  begin(index: number, detail = ''): void {
    if (index !== this.index) this.stepStarted = Date.now();
    this.index = index;
    this.detail = detail;
    if (this.live) {
      this.timer ??= setInterval(() => this.draw(), 1000);
      this.draw();
    } else {
      process.stderr.write(`${this.line()}\n`);
    }
  }

  /** Clears the line before the table is printed. */
  end(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.live) process.stderr.write('\r\x1b[2K');
    process.stderr.write(`done in ${clock((Date.now() - this.started) / 1000)}\n`);
  }

  private secondsLeft(): number {
    const inStep = (Date.now() - this.stepStarted) / 1000;
    const current = Math.max(0, (this.steps[this.index]?.seconds ?? 0) - inStep);
    return current + this.steps.slice(this.index + 1).reduce((sum, step) => sum + step.seconds, 0);
  }

  private line(): string {
    const step = this.steps[this.index]!;
    const what = this.detail === '' ? step.label : `${step.label} (${this.detail})`;
    return `[${this.index + 1}/${this.steps.length}] ${what} | elapsed ${clock((Date.now() - this.started) / 1000)} | about ${clock(this.secondsLeft())} left`;
  }

  private draw(): void {
    process.stderr.write(`\r\x1b[2K${this.line().slice(0, (process.stderr.columns ?? 160) - 1)}`);
  }
}

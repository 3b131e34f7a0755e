// Progress of `dragoman translate` on standard error: a bar redrawn in place on a terminal (segments done out of
// total, the time left), or nothing until a file is done when standard error is a file or a pipe (one line each).
export interface ProgressSink {
  isTTY: boolean;
  columns?: number;
  write(s: string): void;
}

export class ProgressBar {
  private started = Date.now();
  private drawn = false;

  constructor(private readonly sink: ProgressSink, private readonly label: string) {}

  update(done: number, total: number): void {
    if (!this.sink.isTTY) return;
    const width = 24;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const elapsed = (Date.now() - this.started) / 1000;
    const left = done > 0 && done < total ? ` ${clock((elapsed / done) * (total - done))} left` : '';
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} segments${left}  ${this.label}`;
    this.sink.write(`\r\x1b[K${line.slice(0, (this.sink.columns ?? 120) - 1)}`);
    this.drawn = true;
  }

  /** The bar is replaced by `line` (a terminal) or `line` is printed (otherwise). */
  finish(line: string): void {
    this.sink.write(`${this.drawn ? '\r\x1b[K' : ''}${line}\n`);
  }

  get seconds(): number {
    return (Date.now() - this.started) / 1000;
  }
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const mmss = `${String(m).padStart(h ? 2 : 1, '0')}:${String(s % 60).padStart(2, '0')}`;
  return h ? `${h}:${mmss}` : mmss;
}

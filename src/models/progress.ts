// Per-file download progress on stderr. On a terminal one line is redrawn in place (throttled); in a log file or
// CI, where carriage returns make a mess, each file gets one line when it starts and one when it ends.

export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface FileProgress {
  /** Bytes already on disk from an earlier attempt count as done. */
  start(total: number | undefined, resumedFrom: number): void;
  advance(bytes: number): void;
  finish(): void;
  fail(reason: string): void;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function fileProgress(sink: ProgressSink, label: string, now: () => number = Date.now): FileProgress {
  const tty = Boolean(sink.isTTY);
  let total: number | undefined;
  let done = 0;
  let startedAt = 0;
  let startBytes = 0;
  let lastDraw = 0;

  const line = (): string => {
    const elapsed = Math.max((now() - startedAt) / 1000, 0.001);
    const rate = `${formatBytes(Math.round((done - startBytes) / elapsed))}/s`;
    if (total === undefined || total === 0) return `${label}  ${formatBytes(done)}  ${rate}`;
    const frac = Math.min(done / total, 1);
    const width = 24;
    const filled = Math.round(frac * width);
    const bar = '#'.repeat(filled) + '.'.repeat(width - filled);
    return `${label}  [${bar}] ${(frac * 100).toFixed(0).padStart(3)}%  ${formatBytes(done)}/${formatBytes(total)}  ${rate}`;
  };
  const draw = (force: boolean) => {
    if (!tty) return;
    const t = now();
    if (!force && t - lastDraw < 100) return;
    lastDraw = t;
    const cols = sink.columns ?? 100;
    sink.write(`\r\x1b[K${line().slice(0, Math.max(cols - 1, 20))}`);
  };

  return {
    start(t, resumedFrom) {
      total = t;
      done = resumedFrom;
      startBytes = resumedFrom;
      startedAt = now();
      if (tty) draw(true);
      else {
        const size = t === undefined ? 'unknown size' : formatBytes(t);
        sink.write(`${label}: downloading ${size}${resumedFrom > 0 ? `, resuming at ${formatBytes(resumedFrom)}` : ''}\n`);
      }
    },
    advance(bytes) {
      done += bytes;
      draw(false);
    },
    finish() {
      if (tty) {
        draw(true);
        sink.write('\n');
      } else sink.write(`${label}: done, ${formatBytes(done)}\n`);
    },
    fail(reason) {
      if (tty) sink.write('\n');
      sink.write(`${label}: ${reason}\n`);
    },
  };
}

// Download progress: a redrawn bar on a terminal, plain lines elsewhere.
import { describe, expect, it } from 'vitest';
import { fileProgress, formatBytes } from '../../src/models/progress.ts';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, sink: { write: (t: string) => void writes.push(t), isTTY, columns: 120 } };
}

describe('progress', () => {
  it('redraws one line with a bar, percentage and sizes on a TTY', () => {
    let t = 0;
    const { writes, sink: s } = sink(true);
    const p = fileProgress(s, 'onnx/model.onnx', () => t);
    p.start(4 * 1024 * 1024, 0);
    t = 1000;
    p.advance(2 * 1024 * 1024);
    t = 2000;
    p.advance(2 * 1024 * 1024);
    p.finish();
    expect(writes.every((w) => w.startsWith('\r\x1b[K') || w === '\n')).toBe(true);
    expect(writes.at(-2)).toMatch(/onnx\/model\.onnx {2}\[#{24}\] 100% {2}4\.0 MB\/4\.0 MB {2}2\.0 MB\/s$/);
    expect(writes.some((w) => / 50% {2}2\.0 MB\/4\.0 MB/.test(w))).toBe(true);
    expect(writes.at(-1)).toBe('\n');
  });

  it('writes whole lines without carriage returns elsewhere, and says when it resumes', () => {
    const { writes, sink: s } = sink(false);
    const p = fileProgress(s, 'config.json');
    p.start(2048, 1024);
    p.advance(1024);
    p.finish();
    expect(writes).toEqual(['config.json: downloading 2.0 kB, resuming at 1.0 kB\n', 'config.json: done, 2.0 kB\n']);
  });

  it('formats sizes', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(600 * 1024 * 1024)).toBe('600 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GB');
  });
});

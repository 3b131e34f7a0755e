// The progress of `dragoman translate`: on a terminal a bar redrawn in place with segments done out of the total
// and the time left; otherwise nothing but the line when a file is done.
import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress.ts';

describe('ProgressBar', () => {
  it('on a terminal: redrawn in place, segments and time left, replaced by the final line', async () => {
    let out = '';
    const bar = new ProgressBar({ isTTY: true, columns: 200, write: (s) => (out += s) }, 'book.docx');
    bar.update(0, 40);
    await new Promise((r) => setTimeout(r, 30));
    bar.update(10, 40);
    expect(out).toMatch(/^\r\x1b\[K\[\.{24}\] 0\/40 segments {2}book\.docx\r\x1b\[K\[#{6}\.{18}\] 10\/40 segments \d+:\d\d left {2}book\.docx$/);
    bar.finish('book.docx → book.de.docx');
    expect(out.endsWith('\r\x1b[Kbook.docx → book.de.docx\n')).toBe(true);
  });

  it('not a terminal: only the final line', () => {
    let out = '';
    const bar = new ProgressBar({ isTTY: false, write: (s) => (out += s) }, 'a.txt');
    bar.update(1, 2);
    bar.update(2, 2);
    bar.finish('a.txt → a.de.txt');
    expect(out).toBe('a.txt → a.de.txt\n');
  });
});

import { describe, expect, it } from 'vitest';
import { planText } from '../../src/text/segment.ts';
import { planHtml } from '../../src/text/html/index.ts';

/** Translate by upper-casing each segment: assembling must change nothing but the segments. */
const fake = (s: string) => s.toUpperCase();

describe('planText', () => {
  it('splits lines, paragraphs and sentences and keeps every whitespace run exactly', () => {
    const text = '  Hello world. How are you?  \n\n\tSecond paragraph!\r\nLine two\n';
    const plan = planText(text);
    expect(plan.segments).toEqual(['Hello world.', 'How are you?', 'Second paragraph!', 'Line two']);
    expect(plan.assemble(plan.segments)).toBe(text);
    expect(plan.assemble(plan.segments.map(fake))).toBe('  HELLO WORLD. HOW ARE YOU?  \n\n\tSECOND PARAGRAPH!\r\nLINE TWO\n');
  });

  it('sends nothing for empty or whitespace-only text', () => {
    for (const t of ['', '   ', '\n\n', ' \t\r\n ']) {
      const plan = planText(t);
      expect(plan.segments).toEqual([]);
      expect(plan.assemble([])).toBe(t);
    }
  });

  it('does not end a sentence after a common abbreviation or an initial', () => {
    expect(planText('Mr. Smith met Dr. J. Jones. They talked.').segments).toEqual(['Mr. Smith met Dr. J. Jones.', 'They talked.']);
    // A dotted acronym inside quotes (a tiny-nllb dev.jsonl row: cut there, its fr->en parity failed over HTTP).
    const sign = 'Un homme passe devant un grand panneau où est écrit "E.S.E. Electronics".';
    expect(planText(sign).segments).toEqual([sign]);
    expect(planText('He works for the U.S. Army. She does not.').segments).toEqual(['He works for the U.S. Army.', 'She does not.']);
  });

  it('cuts at a NUL, a form feed or a U+FEFF and keeps them verbatim between the pieces', () => {
    for (const sep of ['\u0000', '\ufeff', '\f', '\u0085', '\u0001\u0002']) {
      const text = `${sep}Hello world.${sep}how are you?${sep}`;
      const plan = planText(text);
      expect(plan.segments).toEqual(['Hello world.', 'how are you?']);
      expect(plan.assemble(plan.segments.map(fake))).toBe(`${sep}HELLO WORLD.${sep}HOW ARE YOU?${sep}`);
    }
  });

  it('keeps invisible format characters at a sentence edge out of the segment (the model would drop them)', () => {
    for (const mark of ['\u200b', '\u200e', '\u2067', '\u00ad']) {
      const text = `${mark}Hello world.${mark} ${mark}How are you?${mark}`;
      const plan = planText(text);
      expect(plan.segments).toEqual(['Hello world.', 'How are you?']);
      expect(plan.assemble(plan.segments.map(fake))).toBe(`${mark}HELLO WORLD.${mark} ${mark}HOW ARE YOU?${mark}`);
    }
    expect(planText('\u200b\u200b').segments).toEqual([]);
    // A flag's tag characters are part of the emoji, not an edge: England's flag stays whole.
    const flag = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    expect(planText(`I love England ${flag}`).segments).toEqual([`I love England ${flag}`]);
    // Inside a sentence it stays with it: Thai separates words with U+200B.
    expect(planText('สวัสดี\u200bครับ').segments).toEqual(['สวัสดี\u200bครับ']);
  });

  it('does not cut inside a URL or an address (no space after the punctuation), nor after a quoted "Stop!" before a small letter', () => {
    for (const t of ['See https://x.com/search?q=hello for details.', 'Call me at 555-1234!me@x.org is my mail.', 'He said "Stop!" and left.']) {
      expect(planText(t).segments).toEqual([t]);
    }
    expect(planText('Visit https://example.com/a.b?c=1&d=2. Mail me!').segments).toEqual(['Visit https://example.com/a.b?c=1&d=2.', 'Mail me!']);
    // Chinese with ASCII punctuation is still cut (no spaces there), and so is all-lowercase chat.
    expect(planText('我很好!你呢?谢谢.').segments).toEqual(['我很好!', '你呢?', '谢谢.']);
    // (ICU itself keeps "there. how" together: a small letter after "." does not start a sentence.)
    expect(planText('hello there. how are you? fine!').segments).toEqual(['hello there. how are you?', 'fine!']);
  });

  it('cuts at tabs (columns) and keeps them', () => {
    const plan = planText('Name\tAge\tCity\nAnna\t42\tBerlin');
    expect(plan.segments).toEqual(['Name', 'Age', 'City', 'Anna', '42', 'Berlin']);
    expect(plan.assemble(plan.segments.map(fake))).toBe('NAME\tAGE\tCITY\nANNA\t42\tBERLIN');
  });

  it('a long line (read in pieces: the segmenter slows down with length) is cut exactly as its sentences alone', () => {
    const paragraph = 'Mr. Smith met Dr. J. Jones. They talked about e.g. the weather in St. Louis! 3 dogs ran. "Stop!" he said. 今日は晴れです。明日は雨です。';
    const one = planText(paragraph).segments;
    const long = planText(Array.from({ length: 400 }, () => paragraph).join(' '));
    expect(long.segments).toEqual(Array.from({ length: 400 }, () => one).flat());
    // Without any sentence end for tens of thousands of characters, pieces are cut at a space; nothing is lost.
    const run = Array.from({ length: 5000 }, (_, i) => `word${i} and`).join(' ');
    const plan = planText(run);
    expect(plan.segments.length).toBeGreaterThan(1);
    expect(plan.assemble(plan.segments)).toBe(run);
  });

  it('cuts CJK sentences without spaces', () => {
    expect(planText('今日は晴れです。明日は雨です。').segments).toEqual(['今日は晴れです。', '明日は雨です。']);
  });

  it('refuses a translation count that does not match', () => {
    expect(() => planText('One. Two.').assemble(['x'])).toThrow(/2 segments but 1/);
  });
});

describe('bidi controls stay paired (LRE/RLE/LRO/RLO … PDF, LRI/RLI/FSI … PDI)', () => {
  const CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
  /** Depth never below zero and zero at the end, per kind: every opener closed, every closer opened. */
  const balanced = (s: string): boolean => {
    const stack: string[] = [];
    for (const c of s.match(CONTROLS) ?? []) {
      if (c === '\u202c') {
        if (!'\u202a\u202b\u202d\u202e'.includes(stack.pop() ?? 'x')) return false;
      } else if (c === '\u2069') {
        if (!'\u2066\u2067\u2068'.includes(stack.pop() ?? 'x')) return false;
      } else stack.push(c);
    }
    return stack.length === 0;
  };
  /** What a model does to the controls inside a sentence: drops them (and changes the words). */
  const dropControls = (s: string) => s.replace(CONTROLS, '').toUpperCase();

  it('an override opened at a sentence edge and closed inside it is closed in that sentence, not the next', () => {
    const plan = planText('\u202eHello world\u202c and more. Bye.');
    const out = plan.assemble(plan.segments.map(dropControls));
    expect(balanced(out)).toBe(true);
    // The sentence the override was in ends closed; the next sentence is outside it.
    expect(out).toBe('\u202eHELLO WORLD AND MORE.\u202c BYE.');
  });

  it('isolates likewise, and pairs a model kept are left alone', () => {
    const plan = planText('\u2067Shalom friend\u2069 and more. Bye.');
    expect(balanced(plan.assemble(plan.segments.map(dropControls)))).toBe(true);
    expect(plan.assemble(plan.segments)).toBe('\u2067Shalom friend\u2069 and more. Bye.');
    const inner = planText('Say \u202bhello\u202c now. Bye.');
    expect(inner.assemble(inner.segments.map(dropControls))).toBe('SAY HELLO NOW. BYE.');
  });

  it('a span across sentences keeps both ends; a control the model invents or strands is dropped', () => {
    const across = planText('\u202eHello. World.\u202c Done.');
    const out = across.assemble(across.segments.map(dropControls));
    expect(balanced(out)).toBe(true);
    expect(out.match(CONTROLS)).toEqual(['\u202e', '\u202c']);
    const plan = planText('Hello there. Bye.');
    expect(plan.assemble(['Hallo \u202eda.', 'Tschüss\u2069.'])).toBe('Hallo da. Tschüss.');
  });
});

describe('very long strings', () => {
  it('100,000 letters with no space nor punctuation are cut into segments of at most 4096, nothing lost', () => {
    const letters = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
    const plan = planText(letters);
    expect(Math.max(...plan.segments.map((s) => s.length))).toBeLessThanOrEqual(4096);
    expect(plan.segments.join('')).toBe(letters);
    expect(plan.assemble(plan.segments)).toBe(letters);
    // A surrogate pair is never cut in two.
    const emoji = '😀'.repeat(30_000);
    const cut = planText(emoji);
    expect(cut.segments.every((s) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(s))).toBe(true);
    expect(cut.segments.join('')).toBe(emoji);
  });
});

describe('bidi controls in format=html', () => {
  it('an override closed inside a sentence stays closed in it when the model drops the PDF', () => {
    const plan = planHtml('<p>\u202eHello <b>world</b>\u202c and more. Bye.</p>');
    const out = plan.assemble(plan.segments.map((s) => s.replace(/[\u202a-\u202e\u2066-\u2069]/g, '').toUpperCase()));
    expect(out).toBe('<p>\u202eHELLO <b>WORLD</b> AND MORE.\u202c BYE.</p>');
  });
});

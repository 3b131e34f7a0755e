// Subtitles: a cue's lines are translated as one sentence and set again on at most as many lines, balanced by
// characters at word boundaries, with cue count and timings kept (SRT and WebVTT); a dialogue cue keeps a line per
// speaker. The line breaking on its own, then through a real server (fixture models) against /v1/translate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceLines } from '../../src/documents/formats/cue-lines.ts';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from './jobs-client.ts';

const LIMITS = { maxCharacters: 1e6, maxUnits: 1e5, maxUncompressedBytes: 1e8, maxZipEntries: 1e4, maxCompressionRatio: 200 };
const visible = (line: string) => [...line.replace(/<[^<>]*>/g, '')].length;

/** The smallest longest line any split of `text`'s words into `n` lines can have (all splits tried). */
function bestLongest(text: string, n: number): number {
  const words = text.split(' ');
  let best = Infinity;
  const walk = (from: number, left: number, longest: number) => {
    if (left === 1) {
      best = Math.min(best, Math.max(longest, visible(words.slice(from).join(' '))));
      return;
    }
    for (let to = from + 1; to <= words.length - left + 1; to++) walk(to, left - 1, Math.max(longest, visible(words.slice(from, to).join(' '))));
  };
  walk(0, Math.min(n, words.length), 0);
  return best;
}

describe('balanceLines', () => {
  const cases: [string, number][] = [
    ['Ein Hund schaut den Mann an, der auf der Bank sitzt.', 2],
    ['Die Kinder spielen im Garten hinter dem großen Haus meiner Großmutter.', 3],
    ['Kurz.', 2],
    ['<i>Ein Hund</i> schaut den <font color="red">Mann</font> an.', 2],
    ['Unglaublich langes Wortungetüm kurz', 2],
  ];
  for (const [text, n] of cases) {
    it(`${n} lines: ${text}`, () => {
      const lines = balanceLines(text, n);
      // The words in order, nothing lost or added, no line empty, at most n lines.
      expect(lines.join(' ')).toBe(text);
      expect(lines.length).toBe(Math.min(n, text.split(' ').length));
      expect(lines.every((l) => l.trim() !== '' && l === l.trim())).toBe(true);
      // Balanced: no split has a shorter longest line (tags count nothing).
      expect(Math.max(...lines.map(visible))).toBe(bestLongest(text, n));
    });
  }

  it('never breaks inside a tag with spaces in it', () => {
    const lines = balanceLines('aaaa <font color="dark red">bb cc</font> dddd', 2);
    expect(lines.join(' ')).toBe('aaaa <font color="dark red">bb cc</font> dddd');
    for (const l of lines) expect((l.match(/</g) ?? []).length).toBe((l.match(/>/g) ?? []).length);
  });
});

describe('subtitle files', () => {
  it('SRT: a two-line cue is one unit, a dialogue cue a line per speaker', async () => {
    const srt = '1\n00:00:01,000 --> 00:00:03,000\nA man in a red jacket\nis looking at the dog.\n\n2\n00:00:03,500 --> 00:00:05,000\n- Hello.\n- Good morning.\n';
    const doc = await detectFormat(Buffer.from(srt), 'a.srt').open(Buffer.from(srt), LIMITS);
    expect(doc.units.map((u) => u.html)).toEqual(['A man in a red jacket is looking at the dog.', '- Hello.<br>- Good morning.']);
  });

  it('WebVTT: the same, with cue settings and voice tags kept', async () => {
    const vtt = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:03.000 line:90%\n<v Anna>A man in a red jacket\nis looking at the dog.</v>\n';
    const doc = await detectFormat(Buffer.from(vtt), 'a.vtt').open(Buffer.from(vtt), LIMITS);
    expect(doc.units).toHaveLength(1);
    const out = Buffer.from(await doc.write([doc.units[0]!.html.replace('A man in a red jacket is looking at the dog.', 'Ein Mann in einer roten Jacke schaut den Hund an.')], 'de')).toString();
    expect(out).toBe('WEBVTT\n\n1\n00:00:01.000 --> 00:00:03.000 line:90%\n<v Anna>Ein Mann in einer roten\nJacke schaut den Hund an.</v>\n');
  });
});

describe('subtitles through the server', () => {
  let t: TestApp;
  let key: { id: string; secret: string };

  beforeAll(async () => {
    t = await startTestApp();
    key = await t.key({ rpm: null });
  });

  afterAll(async () => {
    await t?.close();
  });

  async function translated(text: string): Promise<string> {
    const r = await t.call('POST', '/v1/translate', { key: key.secret, body: { q: text, source: 'en', target: 'de', format: 'html' } });
    expect(r.status).toBe(200);
    return r.body.data.translations[0].translatedText;
  }

  for (const [name, file] of [
    ['film.srt', '1\r\n00:00:01,000 --> 00:00:03,500\r\nA man in a red jacket\r\nis looking at the dog.\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,250\r\nThe children play in the garden.\r\n\r\n3\r\n00:00:07,000 --> 00:00:09,000\r\n- Hello.\r\n- Good morning.\r\n'],
    ['film.vtt', 'WEBVTT\n\n00:00:01.000 --> 00:00:03.500\nA man in a red jacket\nis looking at the dog.\n\n00:00:04.000 --> 00:00:06.250\nThe children play in the garden.\n\n00:00:07.000 --> 00:00:09.000\n- Hello.\n- Good morning.\n'],
  ] as const) {
    it(`${name}: the two-line cue is translated as one sentence on at most two balanced lines; cues and timings kept`, async () => {
      const up = await upload(t.url, key.secret, name, file);
      expect(up.status, JSON.stringify(up.body)).toBe(202);
      expect((await waitForJob(t.url, key.secret, up.body.data.document.id)).status).toBe('done');
      const out = (await download(t.url, key.secret, up.body.data.document.id)).bytes.toString();
      const nl = name.endsWith('.srt') ? '\r\n' : '\n';
      const blocks = out.split(`${nl}${nl}`).filter((b) => b.trim() !== '' && !b.startsWith('WEBVTT'));
      const source = file.split(`${nl}${nl}`).filter((b) => b.trim() !== '' && !b.startsWith('WEBVTT'));
      expect(blocks).toHaveLength(source.length);
      // Timings (and SRT numbers) as they were.
      for (const [i, b] of blocks.entries()) {
        const head = source[i]!.split(nl).filter((l) => /-->|^\d+$/.test(l));
        expect(b.split(nl).slice(0, head.length)).toEqual(head);
      }
      const lines = (b: string) => b.split(nl).filter((l) => !/-->|^\d+$/.test(l) && l !== '');
      // Cue 1: the sentence's translation, whole, set on at most two lines as evenly as its words allow.
      const sentence = await translated('A man in a red jacket is looking at the dog.');
      const cue = lines(blocks[0]!);
      expect(cue.join(' ')).toBe(sentence);
      expect(cue.length).toBeLessThanOrEqual(2);
      expect(Math.max(...cue.map(visible))).toBe(bestLongest(sentence, 2));
      // A one-line cue stays one line.
      expect(lines(blocks[1]!)).toEqual([await translated('The children play in the garden.')]);
      // The dialogue cue: a line per speaker, each translated on its own.
      expect(lines(blocks[2]!)).toEqual(((await translated('- Hello.<br>- Good morning.')) as string).split('<br>'));
    });
  }
});

// Translations in other scripts set into LibreOffice's PDF: Arabic, Hebrew, Devanagari (set unshaped: fontkit's
// Indic shaper cannot run), Chinese, Korean, and Cyrillic with bold and italic runs; then all of it in Chinese and
// all of it in Japanese. pdftotext reads each back, pdffonts shows every font embedded as a subset (the Noto faces
// and LibreOffice's own), pdftoppm draws the CJK glyphs, and a CJK page stays small (its face's subset, not the
// 10 MB file). And a Korean source PDF read and set again. Skipped where LibreOffice or poppler is missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeNeeding } from '../tools.ts';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { makeKoreanPdf, makeReportPdf, inkOf as pdfInk } from './pdf-fixtures.ts';
import { LIMITS } from './zip-helpers.ts';


const dir = mkdtempSync(join(tmpdir(), 'dragoman-pdf-scripts-'));
const poppler = (tool: string, bytes: Uint8Array): string => {
  const file = join(dir, `${tool}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  const r = spawnSync(tool, [file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}`);
  return r.stdout;
};

/** pdffonts' rows: name, type, encoding, emb, sub, uni, object, generation. */
const fontRows = (bytes: Uint8Array): string[] => poppler('pdffonts', bytes).split('\n').slice(2).filter((l) => l.trim());
/** A row of a font embedded as a subset: its name six capitals and '+', pdffonts' emb and sub columns yes. */
const SUBSET = /^[A-Z]{6}\+\S+\s.*\s+yes\s+yes\s+(yes|no)\s+\d+\s+\d+\s*$/;

const inkOf = (bytes: Uint8Array): number => pdfInk(dir, bytes);

const SAMPLES = ['مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', '你好世界', 'Привет <span data-w="0">жирный</span> <span data-w="1">курсив</span>', '안녕하세요 <span data-w="0">세계</span>'];

/** Whole translations in Chinese and in Japanese (kana and kanji), with bold and linked runs. */
const CJK: Record<'zh' | 'ja', string[]> = {
  zh: ['花园报告', '狗在<span data-w="0">花园</span>里。猫睡在老房子温暖的屋顶上，孩子们在高大的树旁玩红色的球。', '今天天气很好，请阅读<span data-w="1">网站</span>。', '动物和植物', '房子', '花园', '水很冷。', '这本书很好。'],
  ja: ['庭の報告書', '犬は<span data-w="0">庭</span>にいます。猫は古い家の暖かい屋根の上で寝ています。', 'きょうはいい天気です。ウェブサイトを読んでください。', '動物と植物', '家', 'ガーデン', '水は冷たい。', 'この本はいいです。'],
};

describeNeeding('soffice', 'poppler')('PDF translations in other scripts', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each script is drawn in an embedded Noto face and read back by pdftotext', async () => {
    const source = new Uint8Array(await makeReportPdf());
    const doc = await detectFormat(source, 'report.pdf').open(source, LIMITS);
    const result = await doc.write(doc.units.map((_, i) => SAMPLES[i % SAMPLES.length]!), 'ar');
    const text = poppler('pdftotext', result).normalize('NFC');
    for (const word of ['بالعالم', 'עולם', 'दुनिया', '你好世界', 'жирный', 'курсив', '안녕하세요', '세계']) expect(text, word).toContain(word);
    // Every font embedded as a subset (name prefix and pdffonts' sub column): the Noto faces and LibreOffice's own.
    const fonts = fontRows(result);
    for (const line of fonts) expect(line, line).toMatch(SUBSET);
    const noto = fonts.filter((l) => /Noto/.test(l));
    for (const face of ['NotoNaskhArabic', 'NotoSansHebrew', 'NotoSansSC-Regular', 'NotoSans-Bold', 'NotoSans-Italic', 'NotoSansKR-Regular', 'NotoSansKR-Bold']) {
      expect(noto.some((l) => l.includes(face)), face).toBe(true);
    }
    expect(noto.every((l) => /CID TrueType/.test(l))).toBe(true);
  }, 300_000);

  for (const target of ['zh', 'ja'] as const) {
    it(`all of it in ${target === 'zh' ? 'Chinese' : 'Japanese'}: read back, drawn, every font a subset, the page small`, async () => {
      const source = new Uint8Array(await makeReportPdf());
      const doc = await detectFormat(source, 'report.pdf').open(source, LIMITS);
      const samples = CJK[target];
      const result = await doc.write(doc.units.map((_, i) => samples[i % samples.length]!), target);
      // pdftotext may space the glyphs of a line apart: compared without spaces.
      const text = poppler('pdftotext', result).normalize('NFC').replace(/\s+/g, '');
      for (const sample of samples) expect(text, sample).toContain(sample.replace(/<[^>]+>/g, ''));
      const fonts = fontRows(result);
      for (const line of fonts) expect(line, line).toMatch(SUBSET);
      expect(fonts.filter((l) => /^[A-Z]{6}\+NotoSansSC-Regular\s+CID TrueType/.test(l)).length).toBe(1);
      // The glyphs are drawn, not blank: the text's own ink (over the page with every block empty: the image, the
      // table's rules) is at least half the English text's.
      const blank = inkOf(await doc.write(doc.units.map(() => ''), target));
      expect((inkOf(result) - blank) / (inkOf(source) - blank)).toBeGreaterThan(0.5);
      // One page: the CJK face's subset, not its 10 MB file.
      expect(/Pages:\s+(\d+)/.exec(poppler('pdfinfo', result))![1]).toBe('1');
      expect(result.length).toBeLessThan(300_000);
    }, 300_000);
  }

  it('a Korean source: its lines joined with a space into one block, its Hangul set again in Noto Sans KR', async () => {
    const source = await makeKoreanPdf();
    const doc = await detectFormat(source, 'ko.pdf').open(source, LIMITS);
    const units = doc.units.map((u) => u.html);
    // Two lines of one paragraph: one unit, the line break read as the space it was.
    expect(units).toEqual(['고양이는 따뜻한 지붕 위에서 잠을 잡니다. 아이들은 빨간 공을 가지고 놉니다.']);
    const result = await doc.write(['아이들은 <span data-w="0">정원에서</span> 놉니다.'], 'ko');
    expect(poppler('pdftotext', result).replace(/\s+/g, ' ')).toContain('아이들은 정원에서 놉니다.');
    const fonts = poppler('pdffonts', result);
    expect(fonts).toMatch(/^[A-Z]{6}\+NotoSansKR-Regular\s+CID TrueType/m);
    expect(fonts).toMatch(/^[A-Z]{6}\+NotoSansKR-Bold\s+CID TrueType/m);
  }, 120_000);
});

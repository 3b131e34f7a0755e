// Translations in other scripts set into LibreOffice's PDF: Arabic, Hebrew, Devanagari (set unshaped: fontkit's
// Indic shaper cannot run), Chinese, Korean, and Cyrillic with bold and italic runs. pdftotext reads each back, pdffonts
// shows every font embedded and the TrueType Noto faces as subsets. And a Korean source PDF read and set again.
// Skipped where LibreOffice or poppler is missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeNeeding } from '../tools.ts';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { makeKoreanPdf, makeReportPdf } from './pdf-fixtures.ts';
import { LIMITS } from './zip-helpers.ts';


const dir = mkdtempSync(join(tmpdir(), 'dragoman-pdf-scripts-'));
const poppler = (tool: string, bytes: Uint8Array): string => {
  const file = join(dir, `${tool}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  const r = spawnSync(tool, [file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}`);
  return r.stdout;
};

const SAMPLES = ['مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', '你好世界', 'Привет <span data-w="0">жирный</span> <span data-w="1">курсив</span>', '안녕하세요 <span data-w="0">세계</span>'];

describeNeeding('soffice', 'poppler')('PDF translations in other scripts', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each script is drawn in an embedded Noto face and read back by pdftotext', async () => {
    const source = new Uint8Array(await makeReportPdf());
    const doc = await detectFormat(source, 'report.pdf').open(source, LIMITS);
    const result = await doc.write(doc.units.map((_, i) => SAMPLES[i % SAMPLES.length]!), 'ar');
    const text = poppler('pdftotext', result).normalize('NFC');
    for (const word of ['بالعالم', 'עולם', 'दुनिया', '你好世界', 'жирный', 'курсив', '안녕하세요', '세계']) expect(text, word).toContain(word);
    const fonts = poppler('pdffonts', result).split('\n').slice(2).filter((l) => l.trim());
    for (const line of fonts) expect(line, line).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
    const noto = fonts.filter((l) => /Noto/.test(l));
    for (const face of ['NotoNaskhArabic', 'NotoSansHebrew', 'NotoSansHans', 'NotoSans-Bold', 'NotoSans-Italic', 'NotoSansKR-Regular', 'NotoSansKR-Bold']) {
      expect(noto.some((l) => l.includes(face)), face).toBe(true);
    }
    // TrueType faces (Noto Sans KR's too) as subsets (name prefix and pdffonts' sub column); the CFF Hans face whole.
    expect(noto.filter((l) => /NotoSansKR/.test(l) && /CID TrueType/.test(l)).length).toBe(2);
    for (const line of noto.filter((l) => /CID TrueType/.test(l))) expect(line, line).toMatch(/^[A-Z]{6}\+\S+\s.*\s+yes\s+yes\s+(yes|no)\s+\d+\s+\d+\s*$/);
  }, 300_000);

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

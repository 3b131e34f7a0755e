// PDF in, PDF out on a file LibreOffice made (headings, paragraphs, a two-column section, a table, an image, a
// link): translated through the format=html path with the real engine (tiny Marian en→de), written back, and read
// with poppler: the translations are on the page and the source words gone, the image and the page count are as
// they were, every font is embedded as a subset, blocks start where they started. Bordered tables (LibreOffice's
// stroked lines, Chromium's filled bars) come out cell by cell, and coloured text keeps its colour. Skipped, with
// the reason printed, where LibreOffice or poppler is missing (CI installs both; the Chromium case needs Chromium).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNeeding, itNeeding } from '../tools.ts';
import { launchChromium } from '../ui/harness.ts';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { DocumentError } from '../../src/documents/formats/types.ts';
import { makeReportPdf, makeScannedPdf, makeTablePdf, TABLE_ROWS, inkOf as pdfInk } from './pdf-fixtures.ts';
import { htmlText, LIMITS, startTranslator, type Translator } from './zip-helpers.ts';


const dir = mkdtempSync(join(tmpdir(), 'dragoman-pdf-'));
const poppler = (tool: string, args: string[], bytes: Uint8Array): string => {
  const file = join(dir, `${tool}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  const r = spawnSync(tool, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}`);
  return r.stdout;
};
/** Each line's text and where its first word starts (pdftotext -bbox-layout). */
const lineStarts = (bytes: Uint8Array): { text: string; x: number; y: number }[] =>
  [...poppler('pdftotext', ['-bbox-layout'], bytes).matchAll(/<line[^>]*>([\s\S]*?)<\/line>/g)].map((m) => {
    const words = [...m[1]!.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)</g)];
    return { text: words.map((w) => w[3]).join(' '), x: Number(words[0]![1]), y: Number(words[0]![2]) };
  });

const inkOf = (bytes: Uint8Array): number => pdfInk(dir, bytes);

/** Page 1 drawn by pdftoppm at 72 dpi (one pixel a point, y down): width, height and the RGB bytes. */
function pixelsOf(bytes: Uint8Array): { width: number; height: number; rgb: Buffer } {
  const file = join(dir, `rgb-${Math.random().toString(36).slice(2)}`);
  writeFileSync(`${file}.pdf`, bytes);
  const r = spawnSync('pdftoppm', ['-r', '72', '-f', '1', '-l', '1', `${file}.pdf`, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pdftoppm failed: ${r.stderr}`);
  const ppm = readFileSync(`${file}-1.ppm`);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'))!;
  return { width: Number(header[1]), height: Number(header[2]), rgb: ppm.subarray(header[0].length) };
}

/** Pixels inside a box (points, y down) whose blue stands well above red and green: text drawn in a blue. */
function bluePixels(page: ReturnType<typeof pixelsOf>, box: { x0: number; y0: number; x1: number; y1: number }): number {
  let blue = 0;
  for (let y = Math.max(0, Math.floor(box.y0)); y < Math.min(page.height, Math.ceil(box.y1)); y++) {
    for (let x = Math.max(0, Math.floor(box.x0)); x < Math.min(page.width, Math.ceil(box.x1)); x++) {
      const at = (y * page.width + x) * 3;
      if (page.rgb[at + 2]! > page.rgb[at]! + 60 && page.rgb[at + 2]! > page.rgb[at + 1]! + 20) blue++;
    }
  }
  return blue;
}

/** The table's rules as the source page draws them (y down, points): pixel rows and columns dark across the table. */
function tableRules(page: ReturnType<typeof pixelsOf>): { rows: number[]; columns: number[] } {
  const dark = (x: number, y: number) => page.rgb[(y * page.width + x) * 3]! < 128;
  const runs = (hits: number[]) => hits.filter((v, i) => i === 0 || hits[i - 1] !== v - 1);
  const rows = runs([...Array(page.height).keys()].filter((y) => [...Array(page.width).keys()].filter((x) => dark(x, y)).length > page.width * 0.6));
  const [top, bottom] = [rows[0]!, rows[rows.length - 1]!];
  const columns = runs([...Array(page.width).keys()].filter((x) => {
    let n = 0;
    for (let y = top; y <= bottom; y++) if (dark(x, y)) n++;
    return n >= (bottom - top) * 0.95;
  }));
  return { rows, columns };
}

/** Each word's box (pdftotext -bbox, points, y down). */
const wordsOf = (bytes: Uint8Array): { text: string; x0: number; y0: number; x1: number; y1: number }[] =>
  [...poppler('pdftotext', ['-bbox'], bytes).matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g)].map((m) => ({
    text: m[5]!, x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]),
  }));

describeNeeding('soffice', 'poppler')('PDF documents', () => {
  let translator: Translator;
  let source: Uint8Array;
  let result: Uint8Array;
  let units: string[];
  let translations: string[];
  let table: { source: Uint8Array; result: Uint8Array; units: string[]; translations: string[] };

  beforeAll(async () => {
    translator = await startTranslator();
    const tableSource = await makeTablePdf();
    const tableDoc = await detectFormat(tableSource, 'table.pdf').open(tableSource, LIMITS);
    const tableTranslations = await translator.translate(tableDoc.units);
    table = { source: tableSource, result: await tableDoc.write(tableTranslations, 'de'), units: tableDoc.units.map((u) => u.html), translations: tableTranslations };
    source = await makeReportPdf();
    const format = detectFormat(source, 'report.bin');
    expect(format.id).toBe('pdf');
    const doc = await format.open(source, LIMITS);
    units = doc.units.map((u) => u.html);
    translations = await translator.translate(doc.units);
    result = await doc.write(translations, 'de');
  }, 600_000);

  afterAll(async () => {
    await translator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads paragraphs as blocks: lines joined, the two columns and the table cells apart, in reading order', () => {
    const texts = units.map(htmlText);
    expect(texts).toContain('The garden report');
    const first = texts.findIndex((t) => t.startsWith('The first column tells a story.'));
    const second = texts.findIndex((t) => t.startsWith('The second column begins'));
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    // A paragraph wrapped over four lines is one unit.
    expect(texts[first]).toBe('The first column tells a story. The man reads a book in the morning, and the woman drinks her coffee in the kitchen. The children go to school by bus every day of the week.');
    expect(texts).toContain('The house');
    expect(texts).toContain('The garden');
  });

  it('the translated words are on the page and the source words are gone', () => {
    const text = poppler('pdftotext', ['-layout'], result).replace(/\s+/g, ' ');
    const sourceText = poppler('pdftotext', ['-layout'], source).replace(/\s+/g, ' ');
    expect(sourceText).toContain('children');
    for (const word of ['children', 'garden', 'morning', 'weather', 'column']) expect(text).not.toContain(word);
    // Words of the engine's translations appear on the page.
    const words = [...new Set(translations.flatMap((t) => htmlText(t).split(/\s+/)).filter((w) => /^\p{L}{5,}$/u.test(w)))];
    expect(words.length).toBeGreaterThan(10);
    const found = words.filter((w) => text.includes(w));
    expect(found.length / words.length).toBeGreaterThan(0.9);
  });

  it('keeps the page count, the image, and embeds every font; translates the title', () => {
    const info = (b: Uint8Array) => poppler('pdfinfo', [], b);
    expect(/Pages:\s+(\d+)/.exec(info(result))![1]).toBe(/Pages:\s+(\d+)/.exec(info(source))![1]);
    const images = (b: Uint8Array) => poppler('pdfimages', ['-list'], b).split('\n').slice(2).filter((l) => l.trim()).map((l) => l.trim().split(/\s+/).slice(0, 6).join(' '));
    expect(images(result)).toEqual(images(source));
    expect(images(result).length).toBe(1);
    const fonts = poppler('pdffonts', [], result).split('\n').slice(2).filter((l) => l.trim());
    const noto = fonts.filter((l) => /^[A-Z]{6}\+Noto/.test(l));
    expect(noto.length).toBeGreaterThan(0);
    // Every font is embedded as a subset (name prefix, pdffonts' emb and sub columns): the faces the translation
    // is set in and LibreOffice's own, kept for the text outside the blocks.
    for (const line of fonts) expect(line, line).toMatch(/^[A-Z]{6}\+\S+\s.*\s+yes\s+yes\s+(yes|no)\s+\d+\s+\d+\s*$/);
    expect(info(result)).toMatch(new RegExp(`Title:\\s+${htmlText(translations[0]!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('the translated text is drawn (pdftoppm shows about as much ink as the source has, not blank glyphs)', () => {
    const before = inkOf(source);
    const after = inkOf(result);
    expect(before).toBeGreaterThan(0);
    expect(after / before).toBeGreaterThan(0.6);
  });

  it('sets /Lang to the target', async () => {
    const doc = await PDFDocument.load(result);
    expect(doc.catalog.lookup(PDFName.of('Lang'))?.toString()).toBe('(de)');
  });

  it('each block starts within a few points of where its source started', () => {
    const before = lineStarts(source);
    const after = lineStarts(result);
    // The source lines that begin a block (a unit starts with their first three words).
    const anchors = before.filter((l) => units.some((u) => htmlText(u).startsWith(l.text.split(' ').slice(0, 3).join(' '))));
    expect(anchors.length).toBeGreaterThanOrEqual(8);
    for (const a of anchors) {
      const near = after.filter((w) => Math.abs(w.x - a.x) <= 4 && Math.abs(w.y - a.y) <= 6);
      expect(near.length, JSON.stringify(a)).toBeGreaterThan(0);
    }
    // The second column's text still starts right of the middle of the page.
    const right = after.filter((w) => w.x > 300 && w.y > 230 && w.y < 330);
    expect(right.length).toBeGreaterThan(0);
  });

  it('bold and italic runs are read from the fonts: wrapped in the units, kept by the translation, set in Noto Sans bold and italic', () => {
    const dog = units.find((u) => htmlText(u).startsWith('The dog is in the garden.'))!;
    expect(dog).toMatch(/^<span data-w="0">The dog is in the garden\.<\/span> The cat/);
    const weather = units.find((u) => htmlText(u).includes('The weather is good'))!;
    expect(weather).toContain('<span data-w="1">today</span>');
    // Nothing else on the page is bold or italic.
    expect(units.filter((u) => /data-w="[012]"/.test(u)).length).toBe(2);
    const boldTranslation = translations[units.indexOf(dog)]!;
    const boldWords = /<span data-w="0">([^<]*)<\/span>/.exec(boldTranslation)?.[1];
    expect(boldWords, boldTranslation).toBeTruthy();
    expect(translations[units.indexOf(weather)], translations[units.indexOf(weather)]).toMatch(/<span data-w="1">[^<]+<\/span>/);
    const fonts = poppler('pdffonts', [], result);
    expect(fonts).toMatch(/^[A-Z]{6}\+NotoSans-Bold\s/m);
    expect(fonts).toMatch(/^[A-Z]{6}\+NotoSans-Italic\s/m);
    const text = poppler('pdftotext', [], result).replace(/\s+/g, ' ');
    expect(text).toContain(htmlText(boldWords!).trim());
  });

  it('the link keeps its address and its rectangle moves over the words the translation links', async () => {
    const doc = await (await import('pdfjs-dist/legacy/build/pdf.mjs')).getDocument({ data: result.slice(), verbosity: 0 }).promise;
    const page = await doc.getPage(1);
    const height = page.view[3]!;
    const links = (await page.getAnnotations()).filter((a) => a.subtype === 'Link');
    expect(links.map((l) => l.url)).toEqual(['https://example.org/garden']);
    const rect = links[0]!.rect as number[];
    await doc.destroy();
    const i = units.findIndex((u) => u.includes('data-w="3"'));
    expect(htmlText(units[i]!)).toContain('garden website');
    const linked = /<span data-w="3">(.*?)<\/span>/.exec(translations[i]!)?.[1];
    expect(linked, translations[i]).toBeTruthy();
    // The linked words as pdftotext finds them on the page (page space, y up), each inside the rectangle.
    const words = [...poppler('pdftotext', ['-bbox'], result).matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g)].map((m) => ({
      x0: Number(m[1]), y0: height - Number(m[4]), x1: Number(m[3]), y1: height - Number(m[2]), text: m[5]!.replace(/[.,;:!?]+$/, ''),
    }));
    const wanted = htmlText(linked!).split(/\s+/).map((w) => w.replace(/[.,;:!?]+$/, '')).filter((w) => w.length > 1);
    expect(wanted.length).toBeGreaterThan(0);
    for (const w of wanted) {
      const hits = words.filter((b) => b.text === w && (b.x0 + b.x1) / 2 >= rect[0]! && (b.x0 + b.x1) / 2 <= rect[2]! && (b.y0 + b.y1) / 2 >= rect[1]! && (b.y0 + b.y1) / 2 <= rect[3]!);
      expect(hits.length, `${w} in ${JSON.stringify(rect)}`).toBeGreaterThan(0);
    }
    // And no word of the block outside the link lies under it.
    const outside = htmlText(translations[i]!.replace(/<span data-w="3">.*?<\/span>/, ' ')).split(/\s+/).map((w) => w.replace(/[.,;:!?]+$/, '')).filter((w) => w.length > 3);
    for (const w of outside) {
      const under = words.filter((b) => b.text === w && b.x0 >= rect[0]! && b.x1 <= rect[2]! && (b.y0 + b.y1) / 2 >= rect[1]! && (b.y0 + b.y1) / 2 <= rect[3]!);
      expect(under.length, w).toBe(0);
    }
  });

  it('a table with borders: each cell is its own block, its translation starts where the cell\'s text started and stays between its rules', () => {
    const texts = table.units.map(htmlText);
    for (const row of TABLE_ROWS) for (const cell of row) expect(texts, cell).toContain(cell);
    const { rows, columns } = tableRules(pixelsOf(table.source));
    expect(rows.length).toBe(TABLE_ROWS.length + 1);
    expect(columns.length).toBe(TABLE_ROWS[0]!.length + 1);
    const before = lineStarts(table.source);
    const after = wordsOf(table.result);
    const translatedWords = new Set(table.translations.flatMap((t) => htmlText(t).split(/\s+/)));
    TABLE_ROWS.forEach((row, r) => {
      row.forEach((cell, c) => {
        const start = before.find((l) => l.text === cell)!;
        expect(start, cell).toBeTruthy();
        // The translation's first word: where the cell's text started, within 3 points.
        const words = after.filter((w) => w.x0 >= columns[c]! && w.x1 <= columns[c + 1]! + 1 && w.y0 + w.y1 > 2 * rows[r]! && w.y0 + w.y1 < 2 * rows[r + 1]!);
        expect(words.length, cell).toBeGreaterThan(0);
        const first = words.reduce((a, b) => (b.y0 < a.y0 - 1 || (Math.abs(b.y0 - a.y0) <= 1 && b.x0 < a.x0) ? b : a));
        expect(Math.abs(first.x0 - start.x), `${cell}: ${JSON.stringify(first)}`).toBeLessThanOrEqual(3);
        expect(Math.abs(first.y0 - start.y), `${cell}: ${JSON.stringify(first)}`).toBeLessThanOrEqual(3);
        const unit = texts.indexOf(cell);
        expect(htmlText(table.translations[unit]!).split(/\s+/)).toContain(first.text);
      });
    });
    // Every translated word inside the table lies within one cell: between two row rules and two column rules.
    const inside = after.filter((w) => translatedWords.has(w.text) && w.y0 + w.y1 > 2 * rows[0]! && w.y0 + w.y1 < 2 * rows[rows.length - 1]!);
    expect(inside.length).toBeGreaterThanOrEqual(12);
    for (const w of inside) {
      const middle = (w.y0 + w.y1) / 2;
      const r = rows.findIndex((y, i) => middle > y && middle < rows[i + 1]!);
      const c = columns.findIndex((x, i) => w.x0 > x && w.x0 < columns[i + 1]!);
      expect(r, JSON.stringify(w)).toBeGreaterThanOrEqual(0);
      // The glyphs' height (the box less the font's line gap) keeps off the row's rules.
      const height = (w.y1 - w.y0) * 0.75;
      expect(middle - height / 2, JSON.stringify(w)).toBeGreaterThan(rows[r]!);
      expect(middle + height / 2, JSON.stringify(w)).toBeLessThan(rows[r + 1]!);
      expect(w.x1, JSON.stringify(w)).toBeLessThan(columns[c + 1]!);
    }
  });

  itNeeding('chromium')('a bordered table Chromium prints (its borders filled bars): each cell its own block, its translation where its text started', async () => {
    const cells = TABLE_ROWS.flat();
    const td = (t: string) => `<td style="border: 1px solid black">${t}</td>`;
    const browser = await launchChromium();
    let pdf: Uint8Array;
    try {
      const page = await browser.newPage();
      await page.setContent(`<table style="border-collapse: collapse; width: 100%; font: 12pt serif">${TABLE_ROWS.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('')}</table>`);
      pdf = new Uint8Array(await page.pdf({ format: 'A4' }));
    } finally {
      await browser.close();
    }
    const doc = await detectFormat(pdf, 'table.pdf').open(pdf, LIMITS);
    const texts = doc.units.map((u) => htmlText(u.html));
    for (const cell of cells) expect(texts, cell).toContain(cell);
    const out = await doc.write(await translator.translate(doc.units), 'de');
    const before = lineStarts(pdf);
    const after = lineStarts(out);
    for (const cell of cells) {
      const start = before.find((l) => l.text === cell)!;
      expect(start, cell).toBeTruthy();
      expect(after.some((l) => Math.abs(l.x - start.x) <= 3 && Math.abs(l.y - start.y) <= 3), cell).toBe(true);
    }
  }, 120_000);

  it('text keeps its colour: the blue headings and the blue link are blue in the translation, the black text black', () => {
    for (const [before, out, heading] of [[table.source, table.result, 'The animals of the farm'], [source, result, 'The garden report']] as const) {
      const start = lineStarts(before).find((l) => l.text === heading)!;
      expect(start, heading).toBeTruthy();
      const page = pixelsOf(out);
      const headingBox = { x0: start.x - 2, y0: start.y - 2, x1: start.x + 200, y1: start.y + 14 };
      expect(bluePixels(pixelsOf(before), headingBox), heading).toBeGreaterThan(50);
      expect(bluePixels(page, headingBox), heading).toBeGreaterThan(50);
    }
    // The link's translated words are blue; the paragraph that starts the report is black.
    const i = units.findIndex((u) => u.includes('data-w="3"'));
    const linked = htmlText(/<span data-w="3">(.*?)<\/span>/.exec(translations[i]!)![1]!).split(/\s+/).filter((w) => w.length > 2);
    const page = pixelsOf(result);
    const words = wordsOf(result);
    const linkedBoxes = words.filter((w) => linked.includes(w.text));
    expect(linkedBoxes.length).toBeGreaterThan(0);
    for (const w of linkedBoxes) expect(bluePixels(page, w), w.text).toBeGreaterThan(3);
    const dog = lineStarts(source).find((l) => l.text.startsWith('The dog is in the garden.'))!;
    expect(bluePixels(page, { x0: dog.x, y0: dog.y, x1: dog.x + 400, y1: dog.y + 20 })).toBe(0);
  });

  it('a scanned page (an image and no text) is refused by name', async () => {
    const scan = await makeScannedPdf();
    const err = await detectFormat(scan, 'scan.pdf').open(scan, LIMITS).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect((err as Error).message).toMatch(/no text layer/);
  });

  it('an encrypted PDF and one whose cross-reference table is broken are refused by name', async () => {
    const format = detectFormat(source, 'a.pdf');
    const encrypted = Buffer.from(Buffer.from(source).toString('latin1').replace(/trailer\s*<</, (m) => `${m}/Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>`), 'latin1');
    const e1 = await format.open(encrypted, LIMITS).then(() => undefined, (e: unknown) => e);
    expect((e1 as Error).message).toMatch(/encrypted/);
    const broken = Buffer.from(source);
    const at = broken.lastIndexOf('startxref');
    broken.write('startxref\n12', at, 'latin1');
    const e2 = await format.open(broken, LIMITS).then(() => undefined, (e: unknown) => e);
    expect((e2 as Error).message).toMatch(/cross-reference table is broken/);
  });

  it('mutated PDFs (cut short, bytes flipped, stream bytes flipped): each read refused by name or read and written, never a crash', async () => {
    let x = 0x5eed;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const format = detectFormat(source, 'a.pdf');
    const outcomes: Record<string, number> = {};
    const streamAt = Buffer.from(source).indexOf('stream');
    for (let k = 0; k < 24; k++) {
      const bytes = Buffer.from(source);
      let mutated: Buffer;
      if (k % 3 === 0) mutated = bytes.subarray(0, 5 + Math.floor(next() * (bytes.length - 5)));
      else {
        const from = k % 3 === 1 ? 5 : streamAt;
        for (let f = 0; f < 1 + Math.floor(next() * 8); f++) bytes[from + Math.floor(next() * (bytes.length - from))] = Math.floor(next() * 256);
        mutated = bytes;
      }
      const opened = await format.open(mutated, LIMITS).then((d) => d, (e: unknown) => e);
      if (opened instanceof Error) {
        expect(opened, `#${k}: ${opened.message}`).toBeInstanceOf(DocumentError);
        outcomes[opened.message.slice(0, 40)] = (outcomes[opened.message.slice(0, 40)] ?? 0) + 1;
        continue;
      }
      const doc = opened as Awaited<ReturnType<typeof format.open>>;
      const out = await doc.write(doc.units.map((u) => u.html), 'de').then((b) => b, (e: unknown) => e);
      if (out instanceof Error) expect(out, `#${k} write: ${out.message}`).toBeInstanceOf(DocumentError);
      else expect(Buffer.from((out as Uint8Array).subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      outcomes.written = (outcomes.written ?? 0) + 1;
    }
    console.log(JSON.stringify({ pdfFuzz: outcomes }));
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(24);
  }, 300_000);

  it('hostile PDFs: more pages than the limit, arrays nested 100,000 deep, a 200 MB compression bomb: each refused by name or read, on its worker', async () => {
    const refusedOrRead = async (bytes: Uint8Array, limits = LIMITS) => {
      const out = await detectFormat(bytes, 'a.pdf').open(bytes, limits).then((d) => d, (e: unknown) => e);
      if (out instanceof Error) expect(out, out.message).toBeInstanceOf(DocumentError);
      return out;
    };
    // More pages than the limit: refused from the page tree's count, before any page is read.
    const many = await PDFDocument.load(source);
    for (let i = 0; i < 600; i++) many.addPage([200, 200]);
    const tooMany = await refusedOrRead(await many.save());
    expect((tooMany as Error).message).toMatch(/601 pages; at most 500 .*DRAGOMAN_MAX_PDF_PAGES/);
    // Content nested 100,000 arrays deep, and a stream of 200 MB of zeros compressed to a few hundred kB.
    for (const content of [Buffer.from('BT /F1 12 Tf 10 10 Td ' + '['.repeat(100_000) + ' ET'), Buffer.alloc(200 * 1024 * 1024, 0x20)]) {
      const doc = await PDFDocument.load(source);
      const page = doc.getPage(0);
      page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(content.length > 1e6 ? new Uint8Array(0) : content)));
      if (content.length > 1e6) {
        const raw = doc.context.stream(deflateSync(content), { Filter: 'FlateDecode' });
        page.node.set(PDFName.of('Contents'), doc.context.register(raw));
      }
      await refusedOrRead(await doc.save({ useObjectStreams: false }), { ...LIMITS, pdfMemoryMb: 256, pdfTimeoutMs: 60_000 });
    }
  }, 300_000);
});

// PDFs made by a real producer: a DOCX (npm docx) with headings, paragraphs, a two-column section, a table, an
// image, a link, a bold sentence and an italic word, turned into PDF by LibreOffice; and a scanned page (an image
// and no text) made with pdf-lib.
import { deflateSync } from 'node:zlib';
import {
  AlignmentType,
  ColumnBreak,
  Document,
  ExternalHyperlink,
  HeadingLevel,
  ImageRun,
  Packer,
  Paragraph,
  SectionType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';
import { sofficeConvert } from './zip-helpers.ts';

/** A w×h RGB PNG in two colours (stripes), so an image is something that can be checked for. */
export function stripedPng(w: number, h: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const rows: Buffer[] = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) row.set(((x >> 3) + (y >> 3)) % 2 ? [200, 40, 40] : [40, 40, 200], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const body = (text: string) => new Paragraph({ children: [new TextRun(text)] });

/** The DOCX the test PDF is made from. */
export async function makeReportDocx(): Promise<Buffer> {
  const doc = new Document({
    title: 'The garden report',
    sections: [
      {
        children: [
          new Paragraph({ text: 'The garden report', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun({ text: 'The dog is in the garden.', bold: true }), new TextRun(' The cat sleeps on the warm roof of the old house, and the children play with a red ball near the tall trees.')] }),
          new Paragraph({
            children: [
              new TextRun('Read more on the '),
              new ExternalHyperlink({ link: 'https://example.org/garden', children: [new TextRun({ text: 'garden website', style: 'Hyperlink' })] }),
              new TextRun('. The weather is good '),
              new TextRun({ text: 'today', italics: true }),
              new TextRun('.'),
            ],
          }),
          new Paragraph({ text: 'Animals and plants', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ alignment: AlignmentType.CENTER, children: [new ImageRun({ type: 'png', data: stripedPng(64, 40), transformation: { width: 160, height: 100 } })] }),
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: [
              new TableRow({ children: [new TableCell({ children: [body('The house')] }), new TableCell({ children: [body('The garden')] })] }),
              new TableRow({ children: [new TableCell({ children: [body('The water is cold.')] }), new TableCell({ children: [body('The book is good.')] })] }),
            ],
          }),
        ],
      },
      {
        properties: { type: SectionType.CONTINUOUS, column: { count: 2, space: 720 } },
        children: [
          body('The first column tells a story. The man reads a book in the morning, and the woman drinks her coffee in the kitchen. The children go to school by bus every day of the week.'),
          body('The second paragraph is also here. The teacher writes on the board, and the students listen to her with great interest during the whole lesson.'),
          new Paragraph({ children: [new ColumnBreak(), new TextRun('The second column begins with this sentence. The farmer works in the field, the horse eats the green grass, and the birds sing in the trees of the forest.')] }),
          body('The last paragraph ends the story. The family eats dinner together at the big table in the evening, and then everybody goes to bed.'),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** The report as LibreOffice prints it to PDF. */
export async function makeReportPdf(): Promise<Buffer> {
  const pdf = sofficeConvert({ 'report.docx': await makeReportDocx() }, 'pdf').get('report.docx');
  if (!pdf) throw new Error('LibreOffice made no PDF');
  return pdf;
}

/** The rows of the bordered table of the table PDF: a bold header row and three rows of cells. */
export const TABLE_ROWS = [
  ['Animal', 'Place', 'Colour'],
  ['The dog', 'The garden', 'Brown'],
  ['The cat', 'The roof', 'Black'],
  ['The horse', 'The field', 'White'],
];

/** A heading (blue in LibreOffice's Heading 1), a paragraph, a table of 3 columns × 4 rows with borders, a paragraph. */
export async function makeTablePdf(): Promise<Buffer> {
  const cell = (text: string, bold: boolean) => new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'The animals of the farm', heading: HeadingLevel.HEADING_1 }),
          body('The table below tells where each animal lives.'),
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: TABLE_ROWS.map((row, i) => new TableRow({ children: row.map((text) => cell(text, i === 0)) })),
          }),
          body('The children go to school by bus every day of the week.'),
        ],
      },
    ],
  });
  const pdf = sofficeConvert({ 'table.docx': await Packer.toBuffer(doc) }, 'pdf').get('table.docx');
  if (!pdf) throw new Error('LibreOffice made no PDF');
  return pdf;
}

/** A scanned page: one full-page image, no text layer. */
export async function makeScannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const image = await doc.embedPng(stripedPng(200, 280));
  page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  return doc.save();
}

/**
 * A Korean paragraph on two lines, set by pdf-lib in Noto Sans KR (LibreOffice here has no Hangul font to print
 * one with: its text layer would not hold the Hangul).
 */
export async function makeKoreanPdf(): Promise<Uint8Array> {
  const dir = dirname(createRequire(import.meta.url).resolve('@expo-google-fonts/noto-sans-kr'));
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(readFileSync(join(dir, '400Regular', 'NotoSansKR_400Regular.ttf')), { subset: true });
  const page = doc.addPage([595, 842]);
  page.drawText('고양이는 따뜻한 지붕 위에서 잠을 잡니다.', { x: 72, y: 760, size: 12, font });
  page.drawText('아이들은 빨간 공을 가지고 놉니다.', { x: 72, y: 745, size: 12, font });
  return doc.save();
}

/** Share of dark pixels on page 1 as pdftoppm draws it in grey, the PDF written into `dir` (blank glyphs add none). */
export function inkOf(dir: string, bytes: Uint8Array): number {
  const file = join(dir, `ink-${Math.random().toString(36).slice(2)}`);
  writeFileSync(`${file}.pdf`, bytes);
  const r = spawnSync('pdftoppm', ['-gray', '-r', '40', '-f', '1', '-l', '1', `${file}.pdf`, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pdftoppm failed: ${r.stderr}`);
  const pgm = readFileSync(`${file}-1.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
  const pixels = pgm.subarray(header[0].length);
  let dark = 0;
  for (const v of pixels) if (v < 128) dark++;
  return dark / pixels.length;
}

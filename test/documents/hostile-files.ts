// Hostile and very large documents, made on the spot (no fixture files): shared by the tests (small sizes) and
// `npm run bench:hostile` (the sizes that stalled or killed a server whose documents were read on the event loop).
import { writeZip } from '../../src/documents/formats/zip.ts';

const OFFICE = 'application/vnd.openxmlformats-officedocument.';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MTIME = new Date(Date.UTC(2024, 0, 1));

/** A zip written as the app writes one; names may repeat. */
export function zipOf(entries: [string, string | Uint8Array][]): Promise<Uint8Array> {
  return writeZip(entries.map(([name, content]) => ({ name, data: Buffer.from(content), compressed: true, mtime: MTIME })));
}

/** XLIFF 1.2 with `units` trans-units on one line, none with a target. */
export function xliffOneLine(units: number): string {
  const body = Array.from({ length: units }, (_, i) => `<trans-unit id="${i}"><source>Hello</source></trans-unit>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2"><file source-language="en" datatype="plaintext" original="x"><body>${body}</body></file></xliff>`;
}

const docxTypes = (extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/>${extra}` +
  `<Override PartName="/word/document.xml" ContentType="${OFFICE}wordprocessingml.document.main+xml"/></Types>`;

const docxBody = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`;

/** Four letters, different from one call to the next (so that text compresses as text does). */
function wordOf(n: number): string {
  let x = Math.imul(n + 1, 2654435761) >>> 0;
  let out = '';
  for (let i = 0; i < 4; i++, x >>>= 5) out += String.fromCharCode(97 + (x % 26));
  return out;
}

/** A DOCX of `paragraphs` paragraphs, each of `runs` runs (every other one bold) of one word. */
export function docxOf(paragraphs: number, runs = 1): Promise<Uint8Array> {
  const run = (n: number) => (n % 2 ? `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${wordOf(n)} </w:t></w:r>` : `<w:r><w:t xml:space="preserve">${wordOf(n)} </w:t></w:r>`);
  const body: string[] = [];
  for (let p = 0; p < paragraphs; p++) body.push(`<w:p>${Array.from({ length: runs }, (_, k) => run(p * runs + k)).join('')}</w:p>`);
  return zipOf([['[Content_Types].xml', docxTypes()], ['word/document.xml', docxBody(body.join(''))]]);
}

/** A DOCX with `entries` more entries of `size` bytes each (each under the size from which one entry's ratio is checked). */
export function docxPadded(entries: number, size: number): Promise<Uint8Array> {
  const pad = new Uint8Array(size).fill(0x20);
  const padding = Array.from({ length: entries }, (_, i): [string, Uint8Array] => [`word/media/pad${i}.bin`, pad]);
  return zipOf([['[Content_Types].xml', docxTypes('<Default Extension="bin" ContentType="application/octet-stream"/>')], ['word/document.xml', docxBody('<w:p><w:r><w:t>Hello world.</w:t></w:r></w:p>')], ...padding]);
}

/** A DOCX whose word/document.xml is there twice, with different text. */
export function docxTwice(): Promise<Uint8Array> {
  return zipOf([
    ['[Content_Types].xml', docxTypes()],
    ['word/document.xml', docxBody('<w:p><w:r><w:t>The first text.</w:t></w:r></w:p>')],
    ['word/document.xml', docxBody('<w:p><w:r><w:t>The second text.</w:t></w:r></w:p>')],
  ]);
}

/** An XLSX whose shared strings hold `strings` short <si> (a thousand different ones: a small upload). */
export function xlsxStrings(strings: number): Promise<Uint8Array> {
  const types =
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    `<Override PartName="/xl/workbook.xml" ContentType="${OFFICE}spreadsheetml.sheet.main+xml"/>` +
    `<Override PartName="/xl/sharedStrings.xml" ContentType="${OFFICE}spreadsheetml.sharedStrings+xml"/></Types>`;
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const items = Array.from({ length: strings }, (_, i) => `<si><t>${i % 1000}</t></si>`).join('');
  return zipOf([
    ['[Content_Types].xml', types],
    ['xl/workbook.xml', `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${S}"><sheets/></workbook>`],
    ['xl/sharedStrings.xml', `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${S}" count="${strings}" uniqueCount="${strings}">${items}</sst>`],
  ]);
}

/** SubRip with `cues` cues. */
export function srtOf(cues: number): string {
  return Array.from({ length: cues }, (_, i) => `${i + 1}\n00:00:01,000 --> 00:00:02,000\na\n`).join('\n');
}

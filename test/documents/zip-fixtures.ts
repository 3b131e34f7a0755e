// Test files made by real producers: npm's docx, pptxgenjs and exceljs write DOCX/PPTX/XLSX; LibreOffice
// converts those to ODT/ODP/ODS; EPUB 2 and 3 are written by hand after their specifications (zipped with
// the app's own writeZip: mimetype first and stored).
import ExcelJS from 'exceljs';
import {
  Bookmark,
  Document,
  ExternalHyperlink,
  Footer,
  FootnoteReferenceRun,
  Header,
  HeadingLevel,
  ImageRun,
  InsertedTextRun,
  Packer,
  PageNumber,
  Paragraph,
  SimpleField,
  Tab,
  Table,
  TableCell,
  TableRow,
  TextRun,
  Textbox,
} from 'docx';
import PptxGenJS from 'pptxgenjs';
import { writeZip } from '../../src/documents/formats/zip.ts';
import { sofficeConvert } from './zip-helpers.ts';

// A 1x1 PNG, to show that images come back byte for byte.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export async function makeDocx(): Promise<Uint8Array> {
  const doc = new Document({
    footnotes: { 1: { children: [new Paragraph('The footnote explains the word.')] } },
    sections: [
      {
        headers: { default: new Header({ children: [new Paragraph('The header of the page.')] }) },
        footers: {
          default: new Footer({
            children: [new Paragraph({ children: [new TextRun('The footer of page '), new TextRun({ children: [PageNumber.CURRENT] }), new TextRun(' is short.')] })],
          }),
        },
        children: [
          new Paragraph({ text: 'The first chapter', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [
              new TextRun('This is '),
              new TextRun({ text: 'bold', bold: true }),
              new TextRun(' text and '),
              new TextRun({ text: 'italic', italics: true }),
              new TextRun(' words.'),
              new FootnoteReferenceRun(1),
            ],
          }),
          new Paragraph({
            children: [
              new TextRun('Click '),
              new ExternalHyperlink({ link: 'https://example.com/start', children: [new TextRun({ text: 'here', style: 'Hyperlink' })] }),
              new TextRun(' to start the engine.'),
            ],
          }),
          new Paragraph({ text: 'The cat sleeps on the mat.', bullet: { level: 0 } }),
          new Paragraph({ children: [new TextRun('Name:'), new TextRun({ text: 'The dog', break: 1 }), new TextRun({ children: [new Tab(), 'is in the garden.'] })] }),
          new Paragraph({
            children: [
              new TextRun('The anchor paragraph has a box.'),
              new Textbox({ style: { width: '200pt', height: '50pt' }, children: [new Paragraph('The text box speaks.')] }),
            ],
          }),
          new Paragraph({ children: [new TextRun('See page '), new SimpleField('PAGE', '1'), new TextRun(' for the details.')] }),
          new Paragraph({
            children: [new TextRun('The editor added '), new InsertedTextRun({ text: 'these new words', id: 7, author: 'Ann', date: '2024-01-01T00:00:00Z' }), new TextRun(' to the sentence.')],
          }),
          new Paragraph({ children: [new Bookmark({ id: 'marked', children: [new TextRun('The marked words')] }), new TextRun(' stay marked.')] }),
          new Paragraph({
            children: [new ImageRun({ type: 'png', data: PNG, transformation: { width: 10, height: 10 } }), new TextRun('The picture shows a dog.')],
          }),
          new Table({
            rows: [
              new TableRow({
                children: [new TableCell({ children: [new Paragraph('The house is small.')] }), new TableCell({ children: [new Paragraph('42')] })],
              }),
            ],
          }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

export async function makePptx(): Promise<Uint8Array> {
  const pres = new (PptxGenJS as unknown as new () => any)();
  const s1 = pres.addSlide();
  s1.addText('The first slide', { x: 1, y: 0.5, w: 8, h: 1, fontSize: 32 });
  s1.addText(
    [{ text: 'This is ' }, { text: 'bold', options: { bold: true } }, { text: ' text and ' }, { text: 'italic', options: { italic: true } }, { text: ' words.' }],
    { x: 1, y: 2, w: 8, h: 1 },
  );
  s1.addText([{ text: 'Click ' }, { text: 'here', options: { hyperlink: { url: 'https://example.com/start' } } }, { text: ' to start the engine.' }], { x: 1, y: 3, w: 8, h: 1 });
  s1.addNotes('The speaker notes say hello.');
  const s2 = pres.addSlide();
  s2.addTable([[{ text: 'The house is small.' }, { text: '42' }]], { x: 1, y: 1, w: 8 });
  s2.addText('The cat sleeps on the mat.', { shape: pres.ShapeType.ellipse, x: 5, y: 3, w: 4, h: 1 });
  return new Uint8Array((await pres.write({ outputType: 'nodebuffer' })) as Buffer);
}

export async function makeXlsx(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet One');
  ws.getCell('A1').value = 'The house is small.';
  ws.getCell('B1').value = 42;
  ws.getCell('C1').value = new Date(Date.UTC(2024, 0, 2));
  ws.getCell('A2').value = {
    richText: [{ text: 'This is ' }, { text: 'bold', font: { bold: true } }, { text: ' text and ' }, { text: 'italic', font: { italic: true } }, { text: ' words.' }],
  };
  ws.getCell('B2').value = { formula: 'B1*2', result: 84 };
  ws.getCell('A3').value = { text: 'Click here to start the engine.', hyperlink: 'https://example.com/start' };
  ws.getCell('A4').value = 'The cat sleeps on the mat.';
  // A table: its header cells are its column names.
  ws.addTable({ name: 'Animals', ref: 'A6', headerRow: true, columns: [{ name: 'Animal name' }, { name: 'Count' }], rows: [['The dog runs.', 4]] });
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** ODT, ODP and ODS as LibreOffice writes them, converted from the three files above. */
export function makeOdf(sources: { docx: Uint8Array; pptx: Uint8Array; xlsx: Uint8Array }): { odt: Uint8Array; odp: Uint8Array; ods: Uint8Array } {
  const odt = sofficeConvert({ 'source.docx': sources.docx }, 'odt').get('source.docx');
  const odp = sofficeConvert({ 'source.pptx': sources.pptx }, 'odp').get('source.pptx');
  const ods = sofficeConvert({ 'source.xlsx': sources.xlsx }, 'ods').get('source.xlsx');
  if (!odt || !odp || !ods) throw new Error('LibreOffice did not convert the test files to ODT/ODP/ODS');
  return { odt: new Uint8Array(odt), odp: new Uint8Array(odp), ods: new Uint8Array(ods) };
}

/** DOCX, PPTX and XLSX as LibreOffice writes them, converted from its own ODT, ODP and ODS. */
export function makeOoxmlByLibreOffice(odf: { odt: Uint8Array; odp: Uint8Array; ods: Uint8Array }): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [from, to] of [['odt', 'docx'], ['odp', 'pptx'], ['ods', 'xlsx']] as const) {
    const made = sofficeConvert({ [`lo.${from}`]: odf[from] }, to).get(`lo.${from}`);
    if (!made) throw new Error(`LibreOffice did not convert the test ${from} to ${to}`);
    out[`lo-${to}`] = new Uint8Array(made);
  }
  return out;
}

/** An archive as the app writes one (src/documents/formats/zip.ts), `mimetype` stored, the rest deflated. */
export function zipOf(entries: [string, string | Uint8Array][]): Promise<Uint8Array> {
  const mtime = new Date(Date.UTC(2024, 0, 1));
  return writeZip(entries.map(([name, content]) => ({ name, data: Buffer.from(content), compressed: name !== 'mimetype', mtime })));
}

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`;


const CHAPTER = (doctype: string, head: string) => `<?xml version="1.0" encoding="UTF-8"?>
${doctype}
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en" lang="en">
<head><title>The first chapter</title>${head}</head>
<body>
  <h1 id="top">The first chapter</h1>
  <p>This is <b>bold</b> text and <i>italic</i> words.</p>
  <p>Click <a href="chapter1.xhtml#top">here</a> to start the engine.</p>
  <ul><li>The cat sleeps on the mat.</li></ul>
  <table><tr><td>The house is small.</td><td>42</td></tr></table>
  <p><img src="cover.png" alt="cover"/>The&#160;dog is in the garden.</p>
  <pre>const kept = true;</pre>
</body>
</html>`;

export function makeEpub3(): Promise<Uint8Array> {
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0b5c4a8e-4f55-4b5e-9b8c-2f1d3c6a7e01</dc:identifier>
    <dc:title>The small book</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
    <item id="cover" href="cover.png" media-type="image/png"/>
  </manifest>
  <spine><itemref idref="c1"/></spine>
</package>`;
  const nav = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en" lang="en">
<head><title>Contents</title></head>
<body><nav epub:type="toc"><h1>Contents</h1><ol><li><a href="chapter1.xhtml">The first chapter</a></li></ol></nav></body>
</html>`;
  return zipOf([
    ['mimetype', 'application/epub+zip'],
    ['META-INF/container.xml', CONTAINER],
    ['OEBPS/content.opf', opf],
    ['OEBPS/nav.xhtml', nav],
    ['OEBPS/chapter1.xhtml', CHAPTER('<!DOCTYPE html>', '<link rel="stylesheet" href="style.css"/>')],
    ['OEBPS/style.css', 'p { margin: 0 }'],
    ['OEBPS/cover.png', PNG],
  ]);
}

export function makeEpub2(): Promise<Uint8Array> {
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:title>The small book</dc:title>
    <dc:language>en</dc:language>
    <dc:identifier id="uid" opf:scheme="UUID">0b5c4a8e-4f55-4b5e-9b8c-2f1d3c6a7e02</dc:identifier>
  </metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="c1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="cover.png" media-type="image/png"/>
  </manifest>
  <spine toc="ncx"><itemref idref="c1"/></spine>
</package>`;
  const ncx = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE ncx PUBLIC "-//NISO//DTD ncx 2005-1//EN" "http://www.daisy.org/z3986/2005/ncx-2005-1.dtd">
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="en">
  <head><meta name="dtb:uid" content="0b5c4a8e-4f55-4b5e-9b8c-2f1d3c6a7e02"/></head>
  <docTitle><text>The small book</text></docTitle>
  <navMap><navPoint id="p1" playOrder="1"><navLabel><text>The first chapter</text></navLabel><content src="chapter1.xhtml"/></navPoint></navMap>
</ncx>`;
  const xhtml11 = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">';
  return zipOf([
    ['mimetype', 'application/epub+zip'],
    ['META-INF/container.xml', CONTAINER],
    ['OEBPS/content.opf', opf],
    ['OEBPS/toc.ncx', ncx],
    ['OEBPS/chapter1.xhtml', CHAPTER(xhtml11, '').replace('The&#160;dog', 'The&nbsp;dog')],
    ['OEBPS/cover.png', PNG],
  ]);
}

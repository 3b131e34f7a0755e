// The before/after pictures of the PDF section of docs/documents-formats.md: a two-page DOCX (headings, bold,
// italic and link runs, a bordered table, two images, a two-column section) printed to PDF by LibreOffice,
// translated en→de by `dragoman translate` with the test model tiny-marian-en-de, and both PDFs drawn by
// `pdftoppm -r 50 -png` into docs/images/pdf-page{1,2}-{source,translated}.png.
//   node --import tsx scripts/pdf-pictures.ts
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AlignmentType, ColumnBreak, Document, ExternalHyperlink, HeadingLevel, ImageRun, Packer, Paragraph, SectionType, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { stripedPng } from '../test/documents/pdf-fixtures.ts';
import { sofficeConvert } from '../test/documents/zip-helpers.ts';

const root = resolve(import.meta.dirname, '..');
const body = (text: string) => new Paragraph({ children: [new TextRun(text)] });
const link = (before: string, words: string, after: string, url: string) => new Paragraph({ children: [new TextRun(before), new ExternalHyperlink({ link: url, children: [new TextRun({ text: words, style: 'Hyperlink' })] }), new TextRun(after)] });
const cell = (t: string, bold: boolean) => new TableCell({ children: [new Paragraph({ spacing: { after: 0 }, children: [new TextRun({ text: t, bold })] })] });
const rows = [['Animal', 'Place', 'Colour'], ['The dog', 'The garden', 'Brown'], ['The cat', 'The roof', 'Black'], ['The horse', 'The field', 'White']];
const doc = new Document({ title: 'The garden report', styles: { default: { document: { run: { size: 22 }, paragraph: { spacing: { after: 120 } } } } }, sections: [
  { children: [
    new Paragraph({ text: 'The garden report', heading: HeadingLevel.HEADING_1 }),
    new Paragraph({ children: [new TextRun({ text: 'The dog is in the garden.', bold: true }), new TextRun(' The cat sleeps on the warm roof of the old house, and the children play with a red ball near the tall trees. The weather is good '), new TextRun({ text: 'today', italics: true }), new TextRun(', and the water in the small lake is cold.')] }),
    link('Read more on the ', 'garden website', '. The house has a big kitchen, and the family eats there every evening.', 'https://example.org/garden'),
    new Paragraph({ text: 'Animals and plants', heading: HeadingLevel.HEADING_2 }),
    body('The farmer works in the field, the horse eats the green grass, and the birds sing in the trees of the forest. The man reads a book in the morning, and the woman drinks her coffee in the kitchen.'),
    new Paragraph({ alignment: AlignmentType.CENTER, children: [new ImageRun({ type: 'png', data: stripedPng(96, 64), transformation: { width: 240, height: 160 } })] }),
    new Table({ width: { size: 100, type: WidthType.PERCENTAGE }, rows: rows.map((r, i) => new TableRow({ children: r.map((t) => cell(t, i === 0)) })) }),
    body(''),
    body('The children go to school by bus every day of the week. The teacher writes on the board, and the students listen to her with great interest during the whole lesson.'),
  ] },
  { properties: { type: SectionType.NEXT_PAGE, column: { count: 2, space: 720 } }, children: [
    new Paragraph({ text: 'A story in two columns', heading: HeadingLevel.HEADING_2 }),
    body('The first column tells a story. The man reads a book in the morning, and the woman drinks her coffee in the kitchen. The children go to school by bus every day of the week.'),
    new Paragraph({ children: [new TextRun('The second paragraph is also here. The teacher writes on the board, and the students listen to her with '), new TextRun({ text: 'great interest', bold: true }), new TextRun(' during the whole lesson.')] }),
    new Paragraph({ children: [new ColumnBreak(), new TextRun('The second column begins with this sentence. The farmer works in the field, the horse eats the green grass, and the birds sing in the trees of the forest.')] }),
    new Paragraph({ children: [new TextRun('The last paragraph ends the story. The family eats dinner together at the big table in the '), new TextRun({ text: 'evening', italics: true }), new TextRun(', and then everybody goes to bed.')] }),
  ] },
  { properties: { type: SectionType.CONTINUOUS }, children: [
    new Paragraph({ text: 'The weather', heading: HeadingLevel.HEADING_2 }),
    body('The weather is good in the summer. The sun shines on the garden, and the water in the lake is warm. In the winter the snow is white and the days are short.'),
    new Paragraph({ alignment: AlignmentType.CENTER, children: [new ImageRun({ type: 'png', data: stripedPng(64, 40), transformation: { width: 160, height: 100 } })] }),
    link('The book about the garden is on the ', 'book page', '.', 'https://example.org/book'),
  ] },
] });
const dir = mkdtempSync(join(tmpdir(), 'dragoman-pdf-pictures-'));
const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, cwd: root });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
};
try {
  const source = join(dir, 'garden.pdf');
  writeFileSync(source, sofficeConvert({ 'garden.docx': await Packer.toBuffer(doc) }, 'pdf').get('garden.docx')!);
  const translated = join(dir, 'garden.de.pdf');
  run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'translate', source, '--from', 'en', '--to', 'de', '-o', translated], { ...process.env, DRAGOMAN_MODELS_DIR: join(root, 'test/fixtures/models') });
  for (const [pdf, name] of [[source, 'source'], [translated, 'translated']] as const) {
    run('pdftoppm', ['-r', '50', '-png', pdf, join(dir, name)]);
    for (const page of [1, 2]) copyFileSync(join(dir, `${name}-${page}.png`), join(root, 'docs/images', `pdf-page${page}-${name}.png`));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

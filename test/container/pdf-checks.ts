// The PDF format inside the built image, whose node_modules the Dockerfile prunes (font weights, pdf.js builds,
// types, maps, test folders): a PDF made there with pdf-lib is read by pdf.js on the PDF thread and written with
// Chinese and Japanese translations, and every font of the result is a subset, the Noto Sans SC face's among them.
import { check, expectThat } from './report.ts';
import { run } from './shell.ts';

/** Runs in the image (cwd /app): its own dist/ and node_modules, nothing from this checkout. */
const SCRIPT = `
import { existsSync, readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { detectFormat } from './dist/documents/formats/index.js';
import { fontFiles } from './dist/documents/formats/pdf/fonts.js';
const missing = fontFiles().filter((f) => !existsSync(f));
const doc = await PDFDocument.create();
doc.registerFontkit(fontkit);
const font = await doc.embedFont(readFileSync('node_modules/@embedpdf/fonts-latin/fonts/NotoSans-Regular.ttf'), { subset: true, customName: 'AAAAAA+NotoSans-Regular' });
const page = doc.addPage([595, 842]);
page.drawText('The house is small.', { x: 72, y: 760, size: 12, font });
page.drawText('The cat sleeps on the warm roof.', { x: 72, y: 700, size: 12, font });
const source = await doc.save();
const limits = { maxCharacters: 100000, maxUnits: 1000, maxUncompressedBytes: 50000000, maxZipEntries: 100, maxCompressionRatio: 100 };
const opened = await detectFormat(source, 'page.pdf').open(source, limits);
const result = await opened.write(opened.units.map((_, i) => ['这所房子很小。', '猫は暖かい屋根の上で寝ています。'][i % 2]), 'zh');
const out = await PDFDocument.load(result);
const fonts = [];
for (const [, obj] of out.context.enumerateIndirectObjects()) {
  if (obj instanceof PDFDict && obj.lookup(PDFName.of('Type')) === PDFName.of('Font') && obj.has(PDFName.of('FontDescriptor'))) {
    fonts.push(obj.lookup(PDFName.of('BaseFont')).decodeText());
  }
}
console.log(JSON.stringify({ missing, units: opened.units.length, bytes: result.length, fonts }));
process.exit(0);
`;

export async function checkPdf(image: string, ulimits: string[]): Promise<boolean> {
  return check('the image translates a PDF into Chinese and Japanese, each font embedded as a subset', async () => {
    const r = await run('podman', ['run', '--rm', '--runtime', 'runc', '--network', 'none', ...ulimits, '--health-interval', 'disable',
      '--entrypoint', 'node', image, '--input-type=module', '-e', SCRIPT]);
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    expectThat(r.code === 0 && last.startsWith('{'), `exit ${r.code}: ${(r.stderr || r.stdout).trim().slice(-600)}`);
    const found = JSON.parse(last) as { missing: string[]; units: number; bytes: number; fonts: string[] };
    expectThat(found.missing.length === 0, `font files missing: ${found.missing.join(', ')}`);
    expectThat(found.units === 2, `${found.units} units read, not 2`);
    expectThat(found.fonts.some((f) => /^[A-Z]{6}\+NotoSansSC-Regular$/.test(f)), `fonts: ${found.fonts.join(', ')}`);
    expectThat(found.fonts.every((f) => /^[A-Z]{6}\+/.test(f)), `a font that is not a subset: ${found.fonts.join(', ')}`);
    expectThat(found.bytes < 300_000, `${found.bytes} bytes`);
    return `${found.fonts.join(', ')}; ${(found.bytes / 1000).toFixed(0)} kB`;
  });
}

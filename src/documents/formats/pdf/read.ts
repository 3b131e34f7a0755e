// Reading a PDF for translation (on the PDF worker): its structure checked (cross-reference, encryption, page
// count), its positioned text read page by page by pdf.js, the blocks found on each page, and the title and
// outline read; the units are the title, the outline entries and the blocks, in that order.
import { escapeText } from '../fragment.ts';
import { DocumentError } from '../types.ts';
import { pageBlocks, type Block, type Fragment } from './blocks.ts';
import { pageLinks, splitByLinks, type Link } from './links.ts';
import { blockHtml } from './markup.ts';
import { getDocument, restoreBuiltins, type PDFDocumentProxy } from './pdfjs.ts';
import { pageStyles } from './styles.ts';
import { BROKEN_XREF, checkCrossReference, ENCRYPTED, loadStructure, NO_TEXT_LAYER, outlineItems, titleOf } from './structure.ts';

export interface PdfPlan {
  pages: number;
  title: boolean;
  outline: number;
  blocks: Block[];
  /** The URI links of every page, which the blocks' runs refer to by index. */
  links: Link[];
}

export interface PdfRead {
  plan: PdfPlan;
  units: string[];
}

export interface PdfReadLimits {
  maxPages: number;
  /** Most bytes one content stream may inflate to. */
  maxStreamBytes: number;
}

export async function openPdfJs(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  try {
    // The first document loads pdf.js' worker code, with polyfills of its own.
    return await getDocument({
      data: bytes.slice(),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
      isOffscreenCanvasSupported: false,
      // No font data, CMaps or standard fonts are fetched: text comes from the file alone.
      useWorkerFetch: false,
    }).promise.finally(restoreBuiltins);
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') throw new DocumentError(ENCRYPTED);
    if (name === 'InvalidPDFException') throw new DocumentError(BROKEN_XREF);
    throw err;
  }
}

export async function readPdf(bytes: Uint8Array, limits: PdfReadLimits): Promise<PdfRead> {
  checkCrossReference(bytes);
  const pdf = await openPdfJs(bytes);
  try {
    if (pdf.numPages > limits.maxPages) {
      throw new DocumentError(`The PDF has ${pdf.numPages} pages; at most ${limits.maxPages} are accepted (DRAGOMAN_MAX_PDF_PAGES). Split it into smaller files.`);
    }
    const doc = await loadStructure(bytes);
    if (doc.getPageCount() !== pdf.numPages) throw new DocumentError(BROKEN_XREF);
    const blocks: Block[] = [];
    const links: Link[] = [];
    const pages = doc.getPages();
    let anyText = false;
    for (let p = 1; p <= pdf.numPages; p++) {
      const page = await pdf.getPage(p);
      const content = await page.getTextContent({ disableNormalization: false });
      const own = pages[p - 1]!;
      const { styleAt, rules } = pageStyles(doc, own, limits);
      const first = links.length;
      const onPage = pageLinks(own, p - 1);
      links.push(...onPage);
      const frags: Fragment[] = [];
      for (const item of content.items) {
        if (!('str' in item) || item.str === '') continue;
        anyText ||= /\S/.test(item.str);
        const [a, b, c, d, e, f] = item.transform as number[];
        // Upright horizontal text only: rotated or skewed text stays as it is.
        if (!(a! > 0 && d! > 0 && Math.abs(b!) < 1e-3 && Math.abs(c!) < 1e-3)) continue;
        const frag: Fragment = { text: item.str, x: e!, y: f!, width: item.width, size: d!, ...styleAt(e!, f!, d!) };
        frags.push(...(onPage.length ? splitByLinks(frag, onPage, first) : [frag]));
      }
      const [, , w, h] = page.view;
      blocks.push(...pageBlocks(p - 1, frags, { width: w!, height: h! }, rules));
      page.cleanup();
    }
    if (!anyText) throw new DocumentError(NO_TEXT_LAYER);
    const units: string[] = [];
    const title = doc.getTitle();
    const hasTitle = title !== undefined && /\p{L}/u.test(title);
    if (hasTitle) units.push(escapeText(title));
    const outline = outlineItems(doc).map((item) => titleOf(item) ?? '');
    units.push(...outline.map(escapeText));
    units.push(...blocks.map((b) => blockHtml(b.runs)));
    return { plan: { pages: pdf.numPages, title: hasTitle, outline: outline.length, blocks, links }, units };
  } finally {
    await pdf.destroy();
  }
}

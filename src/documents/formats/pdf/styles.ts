// Bold and italic as a page's fonts tell them. pdf.js names the fonts of its text pieces by its own ids (g_d0_f1)
// and hands out the real font (name, flags) only with a page's full operator list, which costs as much again as
// the text and decodes the images. So the page's content stream (and the forms it draws) is walked here: each
// text-showing operator's start on the page and the font resource it uses, and each font's style read from its
// dictionary: the base font's name (LiberationSerif-Bold, Arial-ItalicMT, ...) and its descriptor's flags, weight
// and italic angle. A text piece takes the style of the operator it starts at.
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFStream, type PDFDocument, type PDFPage } from 'pdf-lib';
import { IDENTITY, multiply, removeText, type ContentHooks } from './content.ts';
import { matrixOf, pageContent, streamBytes, type StreamLimits } from './streams.ts';

export interface Style {
  bold: boolean;
  italic: boolean;
}

interface Shown extends Style {
  x: number;
  y: number;
}

const PLAIN: Style = { bold: false, italic: false };
/** Forms inside forms deeper than this are not walked (their text reads as plain). */
const MAX_FORM_DEPTH = 8;
/** Descriptor flags (PDF 32000 table 121). */
const ITALIC_FLAG = 1 << 6;
const FORCE_BOLD_FLAG = 1 << 18;

const num = (d: PDFDict | undefined, key: string): number | undefined => {
  const v = d?.lookup(PDFName.of(key));
  return v instanceof PDFNumber ? v.asNumber() : undefined;
};

/** A font dictionary's style: from its name, then its descriptor (a Type0 font's is on its descendant). */
export function fontStyle(font: PDFDict): Style {
  const base = font.lookup(PDFName.of('BaseFont'));
  // The subset prefix (ABCDEF+) and the name's slash go; what is left names the face.
  const name = base instanceof PDFName ? base.decodeText().replace(/^[A-Z]{6}\+/, '') : '';
  let descriptor = font.lookupMaybe(PDFName.of('FontDescriptor'), PDFDict);
  if (!descriptor) {
    const descendants = font.lookupMaybe(PDFName.of('DescendantFonts'), PDFArray);
    const first = descendants && descendants.size() > 0 ? descendants.lookup(0) : undefined;
    if (first instanceof PDFDict) descriptor = first.lookupMaybe(PDFName.of('FontDescriptor'), PDFDict);
  }
  const flags = num(descriptor, 'Flags') ?? 0;
  const weight = num(descriptor, 'FontWeight') ?? 400;
  const angle = num(descriptor, 'ItalicAngle') ?? 0;
  return {
    bold: /bold|black|heavy|semibold|demi/i.test(name) || (flags & FORCE_BOLD_FLAG) !== 0 || weight >= 600,
    italic: /italic|oblique|kursiv/i.test(name) || (flags & ITALIC_FLAG) !== 0 || (angle !== 0 && Math.abs(angle) < 45),
  };
}

/** Where each text-showing operator of the page starts and the style of its font. */
function shownOn(doc: PDFDocument, page: PDFPage, limits: StreamLimits): Shown[] {
  const shown: Shown[] = [];
  const styles = new Map<PDFDict, Style>();
  const styleOf = (resources: PDFDict | undefined, name: string): Style => {
    const font = resources?.lookupMaybe(PDFName.of('Font'), PDFDict)?.lookupMaybe(PDFName.of(name), PDFDict);
    if (!font) return PLAIN;
    let s = styles.get(font);
    if (!s) styles.set(font, (s = fontStyle(font)));
    return s;
  };
  const seen = new Set<PDFRef>();
  const hooksFor = (resources: PDFDict | undefined, depth: number): ContentHooks => ({
    remove: (x, y, _size, font) => {
      shown.push({ x, y, ...styleOf(resources, font) });
      return false;
    },
    draw: (name, ctm) => {
      if (depth >= MAX_FORM_DEPTH) return;
      const ref = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict)?.get(PDFName.of(name));
      if (!(ref instanceof PDFRef) || seen.has(ref)) return;
      const form = doc.context.lookup(ref);
      if (!(form instanceof PDFStream) || form.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Form')) return;
      seen.add(ref);
      const own = form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources;
      removeText(streamBytes(form, limits), multiply(matrixOf(form.dict), ctm), hooksFor(own, depth + 1));
    },
  });
  removeText(pageContent(page, limits), IDENTITY, hooksFor(page.node.Resources(), 0));
  return shown;
}

/**
 * A lookup of the style of the text starting at (x, y) on the page: the operator on that baseline that starts at
 * or before x (pdf.js may start a piece inside an operator, at a wide gap), else the nearest one on it.
 */
export function pageStyles(doc: PDFDocument, page: PDFPage, limits: StreamLimits): (x: number, y: number, size: number) => Style {
  const rows = new Map<number, Shown[]>();
  for (const s of shownOn(doc, page, limits)) {
    const key = Math.round(s.y);
    const row = rows.get(key);
    if (row) row.push(s);
    else rows.set(key, [s]);
  }
  return (x, y, size) => {
    let before: Shown | undefined;
    let nearest: Shown | undefined;
    const tol = Math.max(0.5, size * 0.3);
    for (let k = Math.round(y - tol); k <= Math.round(y + tol); k++) {
      for (const s of rows.get(k) ?? []) {
        if (Math.abs(s.y - y) > tol) continue;
        if (s.x <= x + 0.5 && (!before || s.x > before.x)) before = s;
        if (!nearest || Math.abs(s.x - x) < Math.abs(nearest.x - x)) nearest = s;
      }
    }
    const s = before ?? nearest;
    return s ? { bold: s.bold, italic: s.italic } : PLAIN;
  };
}

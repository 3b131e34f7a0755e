// Bold and italic as a page's fonts tell them. pdf.js names the fonts of its text pieces by its own ids (g_d0_f1)
// and hands out the real font (name, flags) only with a page's full operator list, which costs as much again as
// the text and decodes the images. So the page's content stream (and the forms it draws) is walked here: each
// text-showing operator's start on the page and the font resource it uses, and each font's style read from its
// dictionary: the base font's name (LiberationSerif-Bold, Arial-ItalicMT, ...) and its descriptor's flags, weight
// and italic angle. A text piece takes the style of the operator it starts at, and its fill colour. The same walk
// collects the rules the page draws (rules.ts), so the stream is walked once for both.
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFStream, type PDFDocument, type PDFPage } from 'pdf-lib';
import { BLACK, IDENTITY, multiply, removeText, type ContentHooks, type DeviceSpace, type Fill } from './content.ts';
import { addRules, emptyRules, type Rules } from './rules.ts';
import { matrixOf, pageContent, streamBytes, type StreamLimits } from './streams.ts';

export interface Style {
  bold: boolean;
  italic: boolean;
  color: Fill;
}

/** A page's text styles (looked up by where a piece starts) and its rules. */
export interface PageStyles {
  styleAt: (x: number, y: number, size: number) => Style;
  rules: Rules;
}

interface Shown extends Style {
  x: number;
  y: number;
}

const PLAIN: Style = { bold: false, italic: false, color: BLACK };
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
export function fontStyle(font: PDFDict): Omit<Style, 'color'> {
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

/** The device space a colour space resource stands for: ICC profiles by their component count, Cal* spaces. */
function deviceSpaceOf(resources: PDFDict | undefined, name: string): DeviceSpace | undefined {
  const space = resources?.lookupMaybe(PDFName.of('ColorSpace'), PDFDict)?.lookup(PDFName.of(name));
  const family = space instanceof PDFArray && space.size() > 0 ? space.lookup(0) : space;
  if (!(family instanceof PDFName)) return undefined;
  switch (family.asString()) {
    case '/DeviceGray':
    case '/CalGray':
      return 'gray';
    case '/DeviceRGB':
    case '/CalRGB':
      return 'rgb';
    case '/DeviceCMYK':
      return 'cmyk';
    case '/ICCBased': {
      const profile = space instanceof PDFArray && space.size() > 1 ? space.lookup(1) : undefined;
      const n = profile instanceof PDFStream ? num(profile.dict, 'N') : undefined;
      return n === 1 ? 'gray' : n === 3 ? 'rgb' : n === 4 ? 'cmyk' : undefined;
    }
    default:
      return undefined;
  }
}

/** Where each text-showing operator of the page starts, the style of its font and its colour; the page's rules. */
function shownOn(doc: PDFDocument, page: PDFPage, limits: StreamLimits): { shown: Shown[]; rules: Rules } {
  const shown: Shown[] = [];
  const rules = emptyRules();
  const styles = new Map<PDFDict, Omit<Style, 'color'>>();
  const styleOf = (resources: PDFDict | undefined, name: string): Omit<Style, 'color'> => {
    const font = resources?.lookupMaybe(PDFName.of('Font'), PDFDict)?.lookupMaybe(PDFName.of(name), PDFDict);
    if (!font) return PLAIN;
    let s = styles.get(font);
    if (!s) styles.set(font, (s = fontStyle(font)));
    return s;
  };
  const seen = new Set<PDFRef>();
  const hooksFor = (resources: PDFDict | undefined, depth: number): ContentHooks => ({
    remove: (x, y, _size, font, color) => {
      const { bold, italic } = styleOf(resources, font);
      shown.push({ x, y, bold, italic, color });
      return false;
    },
    paint: (path) => addRules(rules, path),
    colorSpace: (name) => deviceSpaceOf(resources, name),
    draw: (name, ctm, fill) => {
      if (depth >= MAX_FORM_DEPTH) return;
      const ref = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict)?.get(PDFName.of(name));
      if (!(ref instanceof PDFRef) || seen.has(ref)) return;
      const form = doc.context.lookup(ref);
      if (!(form instanceof PDFStream) || form.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Form')) return;
      seen.add(ref);
      const own = form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources;
      removeText(streamBytes(form, limits), multiply(matrixOf(form.dict), ctm), hooksFor(own, depth + 1), fill);
    },
  });
  removeText(pageContent(page, limits), IDENTITY, hooksFor(page.node.Resources(), 0));
  return { shown, rules };
}

/**
 * A lookup of the style of the text starting at (x, y) on the page: the operator on that baseline that starts at
 * or before x (pdf.js may start a piece inside an operator, at a wide gap), else the nearest one on it.
 */
export function pageStyles(doc: PDFDocument, page: PDFPage, limits: StreamLimits): PageStyles {
  const rows = new Map<number, Shown[]>();
  const { shown, rules } = shownOn(doc, page, limits);
  for (const s of shown) {
    const key = Math.round(s.y);
    const row = rows.get(key);
    if (row) row.push(s);
    else rows.set(key, [s]);
  }
  const styleAt = (x: number, y: number, size: number): Style => {
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
    return s ? { bold: s.bold, italic: s.italic, color: s.color } : PLAIN;
  };
  return { styleAt, rules };
}

// Link annotations (/Annots, /Subtype /Link with a /URI action): read with the words they cover, so that the
// words travel through translation inside the block's inline markup, and moved when written, so that each link's
// rectangle covers its words where the translation sets them.
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFString, type PDFPage } from 'pdf-lib';
import type { Fragment } from './blocks.ts';

/** A link of the document: its page, its place in the page's /Annots, its rectangle and address. */
export interface Link {
  page: number;
  annot: number;
  rect: [number, number, number, number];
  uri: string;
}

/** Most links read from one page (a page with more keeps the rest where they are). */
const MAX_LINKS = 1_000;

function linkAt(annots: PDFArray, i: number): PDFDict | undefined {
  const a = annots.lookup(i);
  if (!(a instanceof PDFDict) || a.lookup(PDFName.of('Subtype')) !== PDFName.of('Link')) return undefined;
  return a;
}

/** The page's URI links, in /Annots order. */
export function pageLinks(page: PDFPage, index: number): Link[] {
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  const out: Link[] = [];
  if (!annots) return out;
  for (let i = 0; i < annots.size() && out.length < MAX_LINKS; i++) {
    const a = linkAt(annots, i);
    const action = a?.lookupMaybe(PDFName.of('A'), PDFDict);
    const uri = action?.lookup(PDFName.of('URI'));
    const rect = a?.lookupMaybe(PDFName.of('Rect'), PDFArray)?.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : Number.NaN));
    if (!(uri instanceof PDFString || uri instanceof PDFHexString) || !rect || rect.length !== 4 || !rect.every(Number.isFinite)) continue;
    const [x1, y1, x2, y2] = rect as [number, number, number, number];
    out.push({ page: index, annot: i, rect: [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)], uri: uri.decodeText() });
  }
  return out;
}

/**
 * The link's rectangle set to cover `boxes` (left, bottom, right, top; one per line the link's words are set on):
 * /Rect their union, and /QuadPoints one quadrilateral per box when there are several lines.
 */
export function moveLink(page: PDFPage, link: Link, boxes: [number, number, number, number][]): void {
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  const a = annots && link.annot < annots.size() ? linkAt(annots, link.annot) : undefined;
  if (!a || boxes.length === 0) return;
  const r = (v: number) => Math.round(v * 100) / 100;
  const union = [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
  a.set(PDFName.of('Rect'), a.context.obj(union.map(r)));
  if (boxes.length > 1) {
    // Each quadrilateral as readers draw it: upper left, upper right, lower left, lower right.
    a.set(PDFName.of('QuadPoints'), a.context.obj(boxes.flatMap(([x1, y1, x2, y2]) => [x1, y2, x2, y2, x1, y1, x2, y1].map(r))));
  } else a.delete(PDFName.of('QuadPoints'));
}

/**
 * A piece of text cut where links begin and end, word by word (a word's place estimated from the piece's width
 * per character), each part marked with the link (its index in `links`) its middle lies in.
 */
export function splitByLinks(f: Fragment, links: readonly Link[], first: number): Fragment[] {
  const over = links
    .map((l, k) => ({ l, k: first + k }))
    .filter(({ l }) => f.y >= l.rect[1] - f.size * 0.3 && f.y <= l.rect[3] && l.rect[0] < f.x + f.width && l.rect[2] > f.x);
  if (over.length === 0) return [f];
  const chars = [...f.text];
  const per = f.width / Math.max(1, chars.length);
  const parts: Fragment[] = [];
  let at = 0;
  for (const word of f.text.match(/\s*\S+\s*|\s+/g) ?? []) {
    const n = [...word].length;
    const lead = n - [...word.trimStart()].length;
    const body = [...word.trim()].length;
    const mid = f.x + per * (at + lead + body / 2);
    const link = over.find(({ l }) => mid >= l.rect[0] && mid <= l.rect[2])?.k;
    const last = parts[parts.length - 1];
    if (last && last.link === link) {
      last.text += word;
      last.width += per * n;
    } else parts.push({ ...f, text: word, x: f.x + per * at, width: per * n, link });
    at += n;
  }
  return parts;
}

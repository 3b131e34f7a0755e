// Writing the translated PDF (on the PDF worker): on each page the text-showing operators inside the blocks are
// cut out of the content stream (and of the forms it draws), the translations set in the blocks' boxes in the
// Noto faces in the colours of their source text (only the glyphs used, as subsets), bold and italic runs in bold and italic faces,
// each link's rectangle moved over its translated words, the title and outline translated, /Lang set to the
// target, JavaScript dropped. Pages, images, vector drawings and other annotations stay as they were.
import { deflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream, PDFString, type PDFFont, type PDFPage } from 'pdf-lib';
import { fragmentText } from '../fragment.ts';
import type { Block } from './blocks.ts';
import { BLACK, IDENTITY, multiply, removeText, type ContentHooks } from './content.ts';
import { face, sharedFontkit } from './fonts.ts';
import { moveLink } from './links.ts';
import { translatedRuns } from './markup.ts';
import { matrixOf, pageContent, streamBytes, type StreamLimits } from './streams.ts';
import type { PdfPlan } from './read.ts';
import { loadStructure, outlineItems } from './structure.ts';
import { typeset, type Placed } from './typeset.ts';

export type PdfWriteLimits = StreamLimits;

/** Forms inside forms deeper than this keep their text. */
const MAX_FORM_DEPTH = 8;

/** A stream of `bytes` compressed by zlib (native, several times faster than pdf-lib's own deflate). */
function flated(doc: PDFDocument, bytes: Uint8Array, dict: PDFDict): PDFRawStream {
  const data = deflateSync(bytes, { level: 6 });
  dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  dict.set(PDFName.of('Length'), PDFNumber.of(data.length));
  return PDFRawStream.of(dict, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/** The page's content without the blocks' text, cut out of the forms it draws too (each form rewritten once). */
function removePageText(doc: PDFDocument, page: PDFPage, blocks: Block[], limits: PdfWriteLimits, done: Set<PDFRef>): Uint8Array {
  const inside = (x: number, y: number) => blocks.some((b) => x >= b.box[0] - 2 && x <= b.box[2] + 2 && y >= b.box[1] - 2 && y <= b.box[3] + 2);
  const hooksFor = (resources: PDFDict | undefined, depth: number): ContentHooks => ({
    remove: (x, y) => inside(x, y),
    draw: (name, ctm) => {
      if (depth >= MAX_FORM_DEPTH) return;
      const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
      const ref = xobjects?.get(PDFName.of(name));
      if (!(ref instanceof PDFRef) || done.has(ref)) return;
      const form = doc.context.lookup(ref);
      if (!(form instanceof PDFStream) || form.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Form')) return;
      done.add(ref);
      const own = form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources;
      const result = removeText(streamBytes(form, limits), multiply(matrixOf(form.dict), ctm), hooksFor(own, depth + 1));
      if (result.removed === 0) return;
      const dict = form.dict.clone(doc.context);
      dict.delete(PDFName.of('DecodeParms'));
      doc.context.assign(ref, flated(doc, result.bytes, dict));
    },
  });
  return removeText(pageContent(page, limits), IDENTITY, hooksFor(page.node.Resources(), 0)).bytes;
}

/** A number as content streams write it: at most three decimals, no exponent. */
const n = (v: number): string => {
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
};

/** A box around a line's pieces (left, bottom, right, top): from the descender's depth to the ascender's height. */
function lineBoxes(pieces: Placed[]): [number, number, number, number][] {
  const byLine = new Map<number, [number, number, number, number]>();
  for (const p of pieces) {
    const b = byLine.get(p.y);
    const box: [number, number, number, number] = [p.x, p.y - p.size * 0.25, p.x + p.width, p.y + p.size * 0.85];
    byLine.set(p.y, b ? [Math.min(b[0], box[0]), Math.min(b[1], box[1]), Math.max(b[2], box[2]), Math.max(b[3], box[3])] : box);
  }
  return [...byLine.values()];
}

/**
 * Each link whose words the block holds moved over the words its translation sets under it; a link whose
 * markup the translation lost covers the translated block's lines.
 */
function moveBlockLinks(page: PDFPage, block: Block, placed: Placed[], plan: PdfPlan): void {
  const ids = new Set(block.runs.map((r) => r.link).filter((l) => l !== undefined));
  for (const id of ids) {
    const link = plan.links[id];
    if (!link) continue;
    const own = placed.filter((p) => p.link === id && p.text.trim() !== '');
    moveLink(page, link, lineBoxes(own.length ? own : placed));
  }
}

/** Six capitals naming a face's subset, distinct for each face. */
function subsetTag(key: string): string {
  let h = 2166136261;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let tag = '';
  for (let i = 0; i < 6; i++, h = Math.floor(h / 26)) tag += String.fromCharCode(65 + (h % 26));
  return tag;
}

/** JavaScript in any form dropped: document-level scripts, open actions, additional actions, script links. */
function dropJavaScript(doc: PDFDocument): void {
  const JS = PDFName.of('JavaScript');
  const names = doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  names?.delete(JS);
  const isScript = (v: unknown) => v instanceof PDFDict && (v.lookup(PDFName.of('S')) === JS || v.has(PDFName.of('JS')));
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    const dict = obj instanceof PDFDict ? obj : obj instanceof PDFStream ? obj.dict : undefined;
    if (!dict) continue;
    dict.delete(PDFName.of('AA'));
    for (const key of ['A', 'OpenAction', 'Next']) {
      const name = PDFName.of(key);
      if (isScript(dict.lookup(name))) dict.delete(name);
    }
  }
  if (isScript(doc.catalog.lookup(PDFName.of('OpenAction')))) doc.catalog.delete(PDFName.of('OpenAction'));
  doc.catalog.delete(PDFName.of('AA'));
}

export async function writePdf(bytes: Uint8Array, plan: PdfPlan, translations: string[], target: string, limits: PdfWriteLimits): Promise<Uint8Array> {
  const expected = (plan.title ? 1 : 0) + plan.outline + plan.blocks.length;
  if (translations.length !== expected) throw new Error(`expected ${expected} translations, got ${translations.length}`);
  const doc = await loadStructure(bytes);
  doc.registerFontkit(sharedFontkit as Parameters<PDFDocument['registerFontkit']>[0]);
  // The embedded fonts' streams compressed by node:zlib too (pdf-lib's own deflate is JavaScript).
  doc.context.flateStream = (contents, dict = {}) =>
    doc.context.stream(deflateSync(typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents), { ...dict, Filter: 'FlateDecode' });
  let at = 0;
  if (plan.title) doc.setTitle(fragmentText(translations[at++]!).trim());
  const items = outlineItems(doc);
  if (items.length !== plan.outline) throw new Error('the outline changed between reading and writing');
  for (const item of items) {
    const text = fragmentText(translations[at++]!).trim();
    if (text) item.set(PDFName.of('Title'), PDFHexString.fromText(text));
  }
  doc.catalog.set(PDFName.of('Lang'), PDFString.of(target));
  dropJavaScript(doc);

  const pages = doc.getPages();
  const byPage = new Map<number, { block: Block; html: string }[]>();
  for (const block of plan.blocks) {
    const list = byPage.get(block.page) ?? [];
    list.push({ block, html: translations[at++]! });
    byPage.set(block.page, list);
  }
  const fonts = new Map<string, PDFFont>();
  const fontFor = async (key: string): Promise<PDFFont> => {
    const f = face(key);
    let font = fonts.get(f.key);
    if (!font) {
      // Only the glyphs drawn are embedded, under a subset's name (six capitals and '+', as PDF readers expect).
      font = await doc.embedFont(f.bytes, { subset: true, customName: `${subsetTag(f.key)}+${f.name}` });
      fonts.set(f.key, font);
    }
    return font;
  };
  const forms = new Set<PDFRef>();
  for (const [index, list] of byPage) {
    const page = pages[index];
    if (!page) continue;
    const kept = removePageText(doc, page, list.map((l) => l.block), limits, forms);
    // The translations drawn in one text object after the page's own drawing (its graphics state closed, so what
    // is drawn after starts clean), each font named once in the page's resources, all in the page's one stream.
    const names = new Map<PDFFont, string>();
    let text = 'BT\n0 g\n';
    let current = '';
    let color = BLACK;
    for (const { block, html } of list) {
      const { placed } = typeset(block, translatedRuns(block.runs, html));
      for (const piece of placed) {
        const font = await fontFor(piece.face);
        let name = names.get(font);
        if (name === undefined) names.set(font, (name = page.node.newFontDictionary(font.name, font.ref).asString()));
        const tf = `${name} ${n(piece.size)} Tf`;
        if (tf !== current) text += `${(current = tf)}\n`;
        if (piece.color !== color) text += `${(color = piece.color)}\n`;
        text += `1 0 0 1 ${n(piece.x)} ${n(piece.y)} Tm ${font.encodeText(piece.text).toString()} Tj\n`;
      }
      moveBlockLinks(page, block, placed, plan);
    }
    const bytes = Buffer.concat([Buffer.from('q\n'), kept, Buffer.from(`\nQ\n${text}ET\n`, 'latin1')]);
    page.node.set(PDFName.of('Contents'), doc.context.register(flated(doc, bytes, doc.context.obj({}))));
  }
  return doc.save({ updateFieldAppearances: false });
}

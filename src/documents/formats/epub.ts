// EPUB 2 and 3: the package document (container.xml → OPF) names the content documents. Every XHTML
// document of the manifest (chapters and the EPUB 3 navigation document) is translated block by block: each
// run of inline content between block elements is a unit (a paragraph, a heading, a list item, a table cell,
// a TOC entry), inline elements are wrappers, code is a token read as words, images and other objects are
// tokens. EPUB 2's NCX gives its navLabel and docTitle texts. dc:language and the documents' lang/xml:lang are
// set to the target. Scripts, styles, pre, SVG and MathML are kept; the `mimetype` entry stays first and stored.
import type { Inline } from './inline.ts';
import { NestedParagraph } from './nested.ts';
import { packageMimetype } from './odf.ts';
import { openZipDocument, type Entries, type PartPlan, type PartUnit, type Render } from './package.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { escapeXmlText, findAll, isElement, textOf, withAttribute, xmlText, type XmlElement, type XmlNode, type XmlPart } from './xml.ts';

const XHTML = 'http://www.w3.org/1999/xhtml';
const OPF = 'http://www.idpf.org/2007/opf';
const NCX = 'http://www.daisy.org/z3986/2005/ncx/';
const DC = 'http://purl.org/dc/elements/1.1/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

const INLINE = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'label', 'mark', 'q',
  'rb', 's', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u',
]);
const AS_WORDS = new Set(['code', 'kbd', 'samp', 'var']);
const OBJECTS = new Set(['img', 'wbr', 'input', 'object', 'embed', 'iframe', 'audio', 'video', 'svg', 'math', 'ruby', 'button', 'select', 'textarea', 'map', 'canvas']);
const KEPT_BLOCKS = new Set(['script', 'style', 'pre', 'head', 'template', 'noscript']);

const isHtml = (el: XmlElement, set: ReadonlySet<string>): boolean => el.uri === XHTML && set.has(el.local);
const inlineNode = (n: XmlNode): boolean =>
  !isElement(n) || isHtml(n, INLINE) || isHtml(n, AS_WORDS) || isHtml(n, OBJECTS) || (n.uri === XHTML && n.local === 'br') || n.uri !== XHTML;

function inlineContent(part: XmlPart, para: NestedParagraph, nodes: readonly XmlNode[]): Inline[] {
  const src = part.text;
  return nodes.flatMap((c): Inline[] => {
    if (!isElement(c)) return [c];
    const whole = (render: Render): string => render(c.start, c.end);
    if (c.uri === XHTML && c.local === 'br') return [para.br(src.slice(c.start, c.end))];
    if (isHtml(c, AS_WORDS)) return [para.token(whole, textOf(c))];
    if (isHtml(c, INLINE) && c.openEnd !== c.end) return [para.wrap(src.slice(c.start, c.openEnd), `</${c.name}>`, inlineContent(part, para, c.children))];
    return [para.token(whole)];
  });
}

/** Units of one XHTML document: maximal runs of inline content inside each block, in document order. */
function xhtmlUnits(part: XmlPart): PartUnit[] {
  const units: PartUnit[] = [];
  const body = findAll(part.root, (el) => el.uri === XHTML && (el.local === 'body' || el.local === 'title'));
  const visit = (el: XmlElement): void => {
    const close = el.end - `</${el.name}>`.length;
    let run: XmlNode[] = [];
    let runStart = el.openEnd;
    const flush = (end: number): void => {
      if (run.some((n) => (isElement(n) ? true : n.trim() !== ''))) {
        const para = new NestedParagraph();
        const unit = para.unit(inlineContent(part, para, run), runStart, end, { head: () => '', tail: '', text: xmlText });
        if (unit) units.push(unit);
      }
      run = [];
    };
    for (const c of el.children) {
      if (inlineNode(c)) {
        run.push(c);
        continue;
      }
      const block = c as XmlElement;
      flush(block.start);
      if (!isHtml(block, KEPT_BLOCKS)) visit(block);
      runStart = block.end;
    }
    flush(close);
  };
  for (const el of body) if (el.openEnd !== el.end) visit(el);
  return units;
}

/** The html element's (and body's) lang and xml:lang set to the target. */
function langEdits(part: XmlPart, target: string) {
  return [part.root, ...findAll(part.root, (el) => el.uri === XHTML && el.local === 'body')]
    .filter((el) => [...el.attrs.values()].some((a) => a.local === 'lang' && (a.uri === '' || a.uri === XML_NS)))
    .map((el) => {
      let tag = part.text.slice(el.start, el.openEnd);
      for (const [qname, a] of el.attrs) if (a.local === 'lang' && (a.uri === '' || a.uri === XML_NS)) tag = withAttribute(tag, qname, target);
      return { start: el.start, end: el.openEnd, text: tag };
    });
}

function ncxUnits(part: XmlPart): PartUnit[] {
  return findAll(part.root, (el) => el.uri === NCX && el.local === 'text' && el.openEnd !== el.end && el.children.every((c) => !isElement(c)))
    .map((el) => {
      const para = new NestedParagraph();
      return para.unit([textOf(el)], el.openEnd, el.end - `</${el.name}>`.length, { head: () => '', tail: '', text: xmlText });
    })
    .filter((u): u is PartUnit => u !== undefined);
}

/** A manifest href resolved against the package document's folder (zip names, no leading slash). */
function resolveHref(base: string, href: string): string {
  const parts = (base.includes('/') ? base.slice(0, base.lastIndexOf('/') + 1) : '') + decodeURIComponent(href.split('#')[0]!);
  const out: string[] = [];
  for (const seg of parts.split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/');
}

function plan(zip: Entries): Map<string, PartPlan> {
  const container = zip.xml('META-INF/container.xml');
  const rootfile = findAll(container.root, (el) => el.local === 'rootfile').find((el) => (el.attrs.get('media-type')?.value ?? '') === 'application/oebps-package+xml');
  const opfName = rootfile?.attrs.get('full-path')?.value;
  if (opfName === undefined) throw new DocumentError('The EPUB file names no package document in META-INF/container.xml.');
  const encryption = zip.get('META-INF/encryption.xml');
  if (encryption !== undefined) {
    const refs = findAll(zip.xml('META-INF/encryption.xml').root, (el) => el.local === 'CipherReference').map((el) => el.attrs.get('URI')?.value ?? '');
    if (refs.some((uri) => /\.(x?html?|xml|ncx|opf)$/i.test(uri))) throw new DocumentError('The EPUB file is encrypted (DRM-protected); only unprotected e-books can be translated.');
  }
  const opf = zip.xml(opfName);
  const plans = new Map<string, PartPlan>();
  plans.set(opfName, {
    units: [],
    edits: (target) =>
      findAll(opf.root, (el) => el.uri === DC && el.local === 'language' && el.openEnd !== el.end).map((el) => ({
        start: el.openEnd,
        end: el.end - `</${el.name}>`.length,
        text: escapeXmlText(target),
      })),
  });
  for (const item of findAll(opf.root, (el) => el.uri === OPF && el.local === 'item')) {
    const type = item.attrs.get('media-type')?.value;
    const href = item.attrs.get('href')?.value;
    if (href === undefined || /^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    const name = resolveHref(opfName, href);
    if (zip.get(name) === undefined || plans.has(name)) continue;
    if (type === 'application/xhtml+xml') {
      const part = zip.xml(name, { xhtml: true });
      plans.set(name, { units: xhtmlUnits(part), edits: (t) => langEdits(part, t) });
    } else if (type === 'application/x-dtbncx+xml') {
      const part = zip.xml(name, { xhtml: true });
      plans.set(name, { units: ncxUnits(part), edits: (t) => langEdits(part, t) });
    }
  }
  return plans;
}

export const epub: DocumentFormat = {
  id: 'epub',
  mediaType: 'application/epub+zip',
  extension: 'epub',
  sniff: (bytes) => packageMimetype(bytes) === 'application/epub+zip',
  open: (bytes, limits) => openZipDocument(bytes, limits, 'EPUB', plan),
};

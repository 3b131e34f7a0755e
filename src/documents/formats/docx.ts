// Word (DOCX): every w:p of the body, headers, footers, footnotes, endnotes and text boxes (w:txbxContent
// paragraphs sit inside a run of their anchor paragraph: they are units of their own, and the anchor keeps
// them through the nested rendering of its tokens). Runs' w:t text is translated, also inside links, tracked
// insertions, smart tags and inline content controls (wrappers written back around their words); tabs and line
// breaks are breaks; drawings, field codes, bookmarks, footnote references, deletions, math and anything
// unknown are tokens kept as they are. A complex field's shown result is ordinary text, except for value fields.
import { OFFICE, partsOfType, sniffOoxml } from './ooxml.ts';
import { openZipDocument, type PartPlan, type PartUnit, type Render } from './package.ts';
import { RunParagraph, type RunSyntax } from './runs.ts';
import type { Inline } from './inline.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { findAll, isElement, textOf, withAttribute, type XmlElement, type XmlNode, type XmlPart } from './xml.ts';

const W = new Set(['http://schemas.openxmlformats.org/wordprocessingml/2006/main', 'http://purl.oclc.org/ooxml/wordprocessingml/main']);
const ML = `${OFFICE}wordprocessingml.`;
// Only documents: a template or a macro-enabled file given back as .docx would not open in Word.
const MAIN = [`${ML}document.main+xml`];
const TEXT_PARTS = [...MAIN, `${ML}header+xml`, `${ML}footer+xml`, `${ML}footnotes+xml`, `${ML}endnotes+xml`];
const LANG_PARTS = [`${ML}styles+xml`, `${ML}settings+xml`];

const isW = (el: XmlElement, local: string): boolean => el.local === local && W.has(el.uri);

/** `w:lang`'s (and `w:themeFontLang`'s) w:val set to the target inside a piece of WordprocessingML. */
function retagWord(xml: string, target: string): string {
  return xml.replace(/<(\w+:)?(?:lang|themeFontLang)\b[^>]*>/g, (tag, prefix: string | undefined) => {
    const val = `${prefix ?? ''}val`;
    return new RegExp(`\\s${val}\\s*=`).test(tag) ? withAttribute(tag, val, target) : tag;
  });
}

// CT_RPr's children that come after w:lang: a new w:lang goes before the first of them.
const AFTER_LANG = new Set(['eastAsianLayout', 'specVanish', 'oMath']);

/** The document default run properties: their w:lang set, or added when they have none. */
function defaultLangEdits(part: XmlPart, target: string): { start: number; end: number; text: string }[] {
  const existing = findAll(part.root, (el) => isW(el, 'lang') || isW(el, 'themeFontLang'), true);
  const edits = existing.map((el) => ({ start: el.start, end: el.openEnd, text: retagWord(part.text.slice(el.start, el.openEnd), target) }));
  const holder = findAll(part.root, (el) => isW(el, 'rPrDefault'))[0];
  if (holder === undefined) return edits;
  const rPr = holder.children.find((c): c is XmlElement => isElement(c) && isW(c, 'rPr'));
  const p = holder.name.includes(':') ? `${holder.name.split(':')[0]}:` : '';
  if (rPr === undefined) {
    // <w:rPrDefault/> or one without run properties: it gets some, holding only the language.
    const inner = `<${p}rPr><${p}lang ${p}val="${target}"/></${p}rPr>`;
    const text = holder.openEnd === holder.end ? `<${holder.name}>${inner}</${holder.name}>` : part.text.slice(holder.start, holder.openEnd) + inner + part.text.slice(holder.openEnd, holder.end);
    return [...edits, { start: holder.start, end: holder.end, text }];
  }
  if (rPr.children.some((c) => isElement(c) && isW(c, 'lang'))) return edits;
  if (rPr.openEnd === rPr.end) return [...edits, { start: rPr.start, end: rPr.end, text: `<${rPr.name}><${p}lang ${p}val="${target}"/></${rPr.name}>` }];
  const prefix = rPr.name.includes(':') ? `${rPr.name.split(':')[0]}:` : '';
  const before = rPr.children.find((c): c is XmlElement => isElement(c) && AFTER_LANG.has(c.local));
  const at = before?.start ?? rPr.end - `</${rPr.name}>`.length;
  return [...edits, { start: at, end: at, text: `<${prefix}lang ${prefix}val="${target}"/>` }];
}

// Fields whose shown result is a value (a number, a date, a name), not prose: the whole field reads as one word.
const VALUE_FIELDS = /^\s*(PAGE|NUMPAGES|SECTIONPAGES|SECTION|DATE|TIME|CREATEDATE|SAVEDATE|PRINTDATE|EDITTIME|SEQ|PAGEREF|NOTEREF|AUTHOR|LASTSAVEDBY|FILENAME|FILESIZE|NUMWORDS|NUMCHARS|REVNUM|USERNAME|USERINITIALS|MERGEFIELD|DOCPROPERTY)\b/i;

/** The only child of a run besides its properties, when it is a w:fldChar: its type. */
function fieldChar(el: XmlElement): string | undefined {
  if (!isW(el, 'r')) return undefined;
  const kids = el.children.filter((c): c is XmlElement => isElement(c) && !isW(c, 'rPr'));
  if (kids.length !== 1 || !isW(kids[0]!, 'fldChar')) return undefined;
  return [...kids[0]!.attrs.values()].find((a) => a.local === 'fldCharType')?.value;
}

/**
 * A complex field of a value kind (PAGE, DATE…) that begins at elements[i] and ends among the same siblings:
 * the index of its end run and its shown result. Other fields (TOC, HYPERLINK, fields across paragraphs) are
 * left to the run walk: their codes are tokens and their results ordinary text.
 */
function valueField(elements: readonly XmlElement[], i: number): { end: number; shown: string } | undefined {
  if (fieldChar(elements[i]!) !== 'begin') return undefined;
  let depth = 0;
  let code = '';
  let shown = '';
  let separated = false;
  for (let j = i; j < elements.length; j++) {
    const el = elements[j]!;
    const type = fieldChar(el);
    if (type === 'begin') depth++;
    // A field with no result yet (npm docx writes none) still reads as a word: its name stands in.
    else if (type === 'end' && --depth === 0) return VALUE_FIELDS.test(code) ? { end: j, shown: shown || code.trim().split(/\s+/)[0]! } : undefined;
    else if (type === 'separate' && depth === 1) separated = true;
    else if (depth === 1 && isW(el, 'r')) {
      for (const c of el.children) {
        if (!isElement(c)) continue;
        if (!separated && isW(c, 'instrText')) code += textOf(c);
        if (separated && isW(c, 't')) shown += textOf(c);
      }
    }
  }
  return undefined;
}

// Elements around runs whose runs are the paragraph's text: a tracked insertion, a smart tag, custom XML, an
// inline content control, a text direction. Their text is translated inside them; their properties stay.
const CONTAINERS = new Set(['ins', 'moveTo', 'smartTag', 'customXml', 'dir', 'bdo']);
const CONTAINER_PROPERTIES = new Set(['smartTagPr', 'customXmlPr', 'sdtPr', 'sdtEndPr']);

/** Where a container's runs begin and end in the source (after its properties), or undefined for other elements. */
function container(el: XmlElement): { contentStart: number; contentEnd: number; children: XmlNode[] } | undefined {
  if (el.openEnd === el.end) return undefined;
  if (isW(el, 'sdt')) {
    const body = el.children.find((c): c is XmlElement => isElement(c) && isW(c, 'sdtContent'));
    if (body === undefined || body.openEnd === body.end) return undefined;
    return { contentStart: body.openEnd, contentEnd: body.end - `</${body.name}>`.length, children: body.children };
  }
  if (!(W.has(el.uri) && CONTAINERS.has(el.local))) return undefined;
  const props = el.children.filter((c): c is XmlElement => isElement(c) && W.has(c.uri) && CONTAINER_PROPERTIES.has(c.local));
  const contentStart = props.length > 0 ? props[props.length - 1]!.end : el.openEnd;
  return { contentStart, contentEnd: el.end - `</${el.name}>`.length, children: el.children.filter((c) => !props.includes(c as XmlElement)) };
}

function paragraphUnit(part: XmlPart, p: XmlElement): PartUnit | undefined {
  const src = part.text;
  const prefix = p.name.includes(':') ? `${p.name.split(':')[0]}:` : '';
  const syntax: RunSyntax = {
    run: (props, text) => `<${prefix}r>${props}<${prefix}t xml:space="preserve">${text}</${prefix}t></${prefix}r>`,
    retag: retagWord,
  };
  const para = new RunParagraph(syntax);
  let props = '';
  const runNodes = (r: XmlElement): Inline[] => {
    const rPr = r.children.find((c): c is XmlElement => isElement(c) && isW(c, 'rPr'));
    const rProps = rPr ? src.slice(rPr.start, rPr.end) : '';
    const runOf = (inner: string): string => `<${prefix}r>${rProps}${inner}</${prefix}r>`;
    const whole = (c: XmlElement) => (render: Render) => runOf(render(c.start, c.end));
    const out: Inline[] = [];
    for (const c of r.children) {
      if (!isElement(c) || c === rPr) continue;
      if (!W.has(c.uri)) out.push(para.token(whole(c)));
      else if (c.local === 't') out.push(para.run(rProps, [textOf(c)]));
      else if (c.local === 'tab' || c.local === 'br' || c.local === 'cr') out.push(para.br(runOf(src.slice(c.start, c.end))));
      else if (c.local === 'noBreakHyphen') out.push(para.run(rProps, ['\u2011']));
      else if (c.local === 'softHyphen' || c.local === 'lastRenderedPageBreak') continue;
      else out.push(para.token(whole(c)));
    }
    return out;
  };
  const content = (children: readonly (XmlElement | string)[]): Inline[] => {
    const out: Inline[] = [];
    const elements = children.filter(isElement);
    for (let i = 0; i < elements.length; i++) {
      const field = valueField(elements, i);
      if (field !== undefined) {
        const [first, last] = [elements[i]!, elements[field.end]!];
        out.push(para.token((render) => render(first.start, last.end), field.shown));
        i = field.end;
      } else out.push(...item(elements[i]!));
    }
    return out;
  };
  const item = (c: XmlElement): Inline[] => {
    if (isW(c, 'pPr')) {
      props = src.slice(c.start, c.end);
      return [];
    }
    if (isW(c, 'r')) return runNodes(c);
    if (isW(c, 'proofErr')) return [];
    // (a self-closing element has openEnd === end)
    if (isW(c, 'hyperlink') && c.openEnd !== c.end) return [para.link(src.slice(c.start, c.openEnd), `</${c.name}>`, content(c.children))];
    const around = container(c);
    if (around !== undefined) {
      return [para.link(src.slice(c.start, around.contentStart), src.slice(around.contentEnd, c.end), content(around.children))];
    }
    const whole = (render: Render) => render(c.start, c.end);
    // A simple field's shown value (a page number, a date) reads as words of the sentence.
    if (isW(c, 'fldSimple')) return [para.token(whole, textOf(c))];
    return [para.token(whole)];
  };
  const nodes = content(p.children);
  return para.unit(nodes, p.start, p.end, (target) => src.slice(p.start, p.openEnd) + retagWord(props, target), () => `</${p.name}>`);
}

/** Paragraphs (and text box paragraphs inside them: a w:p is looked into). Self-closing ones hold nothing. */
function paragraphs(part: XmlPart): PartUnit[] {
  return findAll(part.root, (el) => isW(el, 'p') && el.openEnd !== el.end, true)
    .map((p) => paragraphUnit(part, p))
    .filter((u): u is PartUnit => u !== undefined);
}

export const docx: DocumentFormat = {
  id: 'docx',
  mediaType: `${OFFICE}wordprocessingml.document`,
  extension: 'docx',
  sniff: (bytes) => sniffOoxml(bytes, MAIN),
  open: (bytes, limits) =>
    openZipDocument(bytes, limits, 'DOCX', (zip) => {
      const plans = new Map<string, PartPlan>();
      if (partsOfType(zip, MAIN).length === 0) throw new DocumentError('The DOCX file has no main document part.');
      for (const name of partsOfType(zip, TEXT_PARTS)) plans.set(name, { units: paragraphs(zip.xml(name)) });
      for (const name of partsOfType(zip, LANG_PARTS)) {
        const part = zip.xml(name);
        plans.set(name, { units: [], edits: (target) => defaultLangEdits(part, target) });
      }
      return plans;
    }),
};

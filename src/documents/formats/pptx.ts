// PowerPoint (PPTX): every a:p of the slides (shapes, text boxes, placeholders, table cells) and of the
// speaker notes. Runs' a:t text is translated (a link is a run property, so it is a run wrapper too); a:br
// is a break; fields (slide number, date) are tokens read as words; a:endParaRPr stays last. Layouts,
// masters, charts and SmartArt are kept as they are.
import type { Inline } from './inline.ts';
import { OFFICE, partsOfType, sniffOoxml } from './ooxml.ts';
import { openZipDocument, type PartPlan, type PartUnit } from './package.ts';
import { RunParagraph } from './runs.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { findAll, isElement, textOf, withAttribute, type XmlElement, type XmlPart } from './xml.ts';

const A = new Set(['http://schemas.openxmlformats.org/drawingml/2006/main', 'http://purl.oclc.org/ooxml/drawingml/main']);
const ML = `${OFFICE}presentationml.`;
// Only presentations: a show, a template or a macro-enabled file given back as .pptx would not open in PowerPoint.
const MAIN = [`${ML}presentation.main+xml`];
const TEXT_PARTS = [`${ML}slide+xml`, `${ML}notesSlide+xml`];

const isA = (el: XmlElement, local: string): boolean => el.local === local && A.has(el.uri);

/** The `lang` of run properties (their start tag) set to the target; properties without one stay as they are. */
export function retagDrawing(props: string, target: string): string {
  return props.replace(/^<[^>]*>/, (tag) => (/\slang\s*=/.test(tag) ? withAttribute(tag, 'lang', target) : tag));
}

function paragraphUnit(part: XmlPart, p: XmlElement): PartUnit | undefined {
  const src = part.text;
  const prefix = p.name.includes(':') ? `${p.name.split(':')[0]}:` : '';
  const para = new RunParagraph({
    run: (props, text) => `<${prefix}r>${props}<${prefix}t>${text}</${prefix}t></${prefix}r>`,
    retag: retagDrawing,
  });
  let head = '';
  let end = '';
  const nodes: Inline[] = [];
  for (const c of p.children) {
    if (!isElement(c)) continue;
    const slice = src.slice(c.start, c.end);
    if (isA(c, 'pPr')) head = slice;
    else if (isA(c, 'endParaRPr')) end = slice;
    else if (isA(c, 'r')) {
      const rPr = c.children.find((x): x is XmlElement => isElement(x) && isA(x, 'rPr'));
      const t = c.children.find((x): x is XmlElement => isElement(x) && isA(x, 't'));
      nodes.push(para.run(rPr ? src.slice(rPr.start, rPr.end) : '', [t ? textOf(t) : '']));
    } else if (isA(c, 'br')) nodes.push(para.br(slice));
    else if (isA(c, 'fld')) nodes.push(para.token(() => slice, textOf(c)));
    else nodes.push(para.token(() => slice));
  }
  return para.unit(
    nodes,
    p.start,
    p.end,
    () => src.slice(p.start, p.openEnd) + head,
    (target) => retagDrawing(end, target) + `</${p.name}>`,
  );
}

function paragraphs(part: XmlPart): PartUnit[] {
  return findAll(part.root, (el) => isA(el, 'p') && el.openEnd !== el.end)
    .map((p) => paragraphUnit(part, p))
    .filter((u): u is PartUnit => u !== undefined);
}

export const pptx: DocumentFormat = {
  id: 'pptx',
  mediaType: `${OFFICE}presentationml.presentation`,
  extension: 'pptx',
  sniff: (bytes) => sniffOoxml(bytes, MAIN),
  open: (bytes, limits) =>
    openZipDocument(bytes, limits, 'PPTX', (zip) => {
      if (partsOfType(zip, MAIN).length === 0) throw new DocumentError('The PPTX file has no presentation part.');
      const plans = new Map<string, PartPlan>();
      for (const name of partsOfType(zip, TEXT_PARTS)) plans.set(name, { units: paragraphs(zip.xml(name)) });
      return plans;
    }),
};

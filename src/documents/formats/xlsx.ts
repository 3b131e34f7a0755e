// Excel (XLSX): string cells only. Shared strings (xl/sharedStrings.xml, each <si>) and inline strings
// (<c t="inlineStr"><is>) are translated, plain or rich text (runs with properties); numbers, dates,
// booleans, formulas and their cached results are never touched, nor the header cells of tables (their text
// is the table's column names). Phonetic runs (rPh) describe the source text's characters and are dropped
// from translated strings; sheet names, comments and charts are kept.
import type { Inline } from './inline.ts';
import { OFFICE, partsOfType, sniffOoxml } from './ooxml.ts';
import { openZipDocument, type PartPlan, type PartUnit } from './package.ts';
import { RunParagraph } from './runs.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { findAll, isElement, textOf, type XmlElement, type XmlPart } from './xml.ts';

const S = new Set(['http://schemas.openxmlformats.org/spreadsheetml/2006/main', 'http://purl.oclc.org/ooxml/spreadsheetml/main']);
const ML = `${OFFICE}spreadsheetml.`;
// Only workbooks: a template or a macro-enabled file given back as .xlsx would not open in Excel.
const MAIN = [`${ML}sheet.main+xml`];

const isS = (el: XmlElement, local: string): boolean => el.local === local && S.has(el.uri);

// The properties of text that was a plain <t> (no runs): written back as a plain <t>.
const PLAIN = '\u0000plain';

/** One string item (<si> or <is>): its text and runs as a unit. */
function stringUnit(part: XmlPart, si: XmlElement): PartUnit | undefined {
  const src = part.text;
  const prefix = si.name.includes(':') ? `${si.name.split(':')[0]}:` : '';
  const t = (text: string): string => `<${prefix}t xml:space="preserve">${text}</${prefix}t>`;
  const para = new RunParagraph({
    run: (props, text) => (props === PLAIN ? t(text) : `<${prefix}r>${props}${t(text)}</${prefix}r>`),
    retag: (props) => props,
  });
  const nodes: Inline[] = [];
  let tail = '';
  for (const c of si.children) {
    if (!isElement(c)) continue;
    if (isS(c, 't')) nodes.push(para.run(PLAIN, [textOf(c)]));
    else if (isS(c, 'r')) {
      const rPr = c.children.find((x): x is XmlElement => isElement(x) && isS(x, 'rPr'));
      const text = c.children.filter((x): x is XmlElement => isElement(x) && isS(x, 't')).map(textOf).join('');
      nodes.push(para.run(rPr ? src.slice(rPr.start, rPr.end) : '', [text]));
    } else if (isS(c, 'phoneticPr')) tail += src.slice(c.start, c.end);
  }
  return para.unit(nodes, si.start, si.end, () => src.slice(si.start, si.openEnd), () => tail + `</${si.name}>`);
}

function strings(part: XmlPart, take: (el: XmlElement) => boolean): PartUnit[] {
  return findAll(part.root, (el) => take(el) && el.openEnd !== el.end)
    .map((el) => stringUnit(part, el))
    .filter((u): u is PartUnit => u !== undefined);
}

const inlineString = (el: XmlElement): boolean =>
  isS(el, 'is') && el.parent !== undefined && isS(el.parent, 'c') && el.parent.attrs.get('t')?.value === 'inlineStr';

/** A string item's text as a cell shows it (its t elements, not the phonetic runs). */
function plainText(si: XmlElement): string {
  return findAll(si, (el) => isS(el, 't') && !(el.parent !== undefined && isS(el.parent, 'rPh'))).map(textOf).join('');
}

export const xlsx: DocumentFormat = {
  id: 'xlsx',
  mediaType: `${OFFICE}spreadsheetml.sheet`,
  extension: 'xlsx',
  sniff: (bytes) => sniffOoxml(bytes, MAIN),
  open: (bytes, limits) =>
    openZipDocument(bytes, limits, 'XLSX', (zip) => {
      if (partsOfType(zip, MAIN).length === 0) throw new DocumentError('The XLSX file has no workbook part.');
      const plans = new Map<string, PartPlan>();
      // A table's header cells must read exactly as its column names (Excel repairs the file otherwise), and
      // formulas refer to tables by those names: header strings stay untranslated.
      const headers = new Set(
        partsOfType(zip, [`${ML}table+xml`]).flatMap((name) =>
          findAll(zip.xml(name).root, (el) => isS(el, 'tableColumn')).map((el) => el.attrs.get('name')?.value ?? ''),
        ),
      );
      const translated = (el: XmlElement): boolean => isS(el, 'si') && !headers.has(plainText(el));
      for (const name of partsOfType(zip, [`${ML}sharedStrings+xml`])) plans.set(name, { units: strings(zip.xml(name), translated) });
      for (const name of partsOfType(zip, [`${ML}worksheet+xml`])) {
        const units = strings(zip.xml(name), inlineString);
        if (units.length > 0) plans.set(name, { units });
      }
      return plans;
    }),
};

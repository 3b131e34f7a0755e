// OpenDocument text, presentation and spreadsheet (ODT, ODP, ODS): every text:p and text:h of content.xml
// (body text, headings, list items, table cells, frames and text boxes, shapes, slides, speaker notes,
// footnotes and endnotes) and the headers and footers of styles.xml's master pages. In spreadsheets only
// string cells: a cell with a formula or a number, date, time, currency, percentage or boolean value is kept.
// text:span and text:a are wrappers, tabs and line breaks are breaks, fields are tokens read as words, notes,
// frames, bookmarks and annotations are tokens (their own paragraphs are units of their own). Language tags:
// fo:language / fo:country of the styles and meta.xml's dc:language.
import type { Inline } from './inline.ts';
import { NestedParagraph } from './nested.ts';
import { openZipDocument, type Entries, type PartPlan, type PartUnit, type Render } from './package.ts';
import { escapeXmlText, findAll, isElement, withAttribute, xmlText, type XmlElement, type XmlPart } from './xml.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { peekZip } from './zip.ts';

const TEXT = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
const TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
const OFFICE = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const STYLE = 'urn:oasis:names:tc:opendocument:xmlns:style:1.0';
const FO = 'urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0';
const DC = 'http://purl.org/dc/elements/1.1/';
const MANIFEST = 'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0';

const isText = (el: XmlElement, ...locals: string[]): boolean => el.uri === TEXT && locals.includes(el.local);

/** The `mimetype` entry's content: first in the archive and stored, as the specification asks (or anywhere). */
export function packageMimetype(bytes: Uint8Array): string | undefined {
  const peek = peekZip(bytes);
  if (peek === undefined) return undefined;
  if (peek.firstStored?.name === 'mimetype') return peek.firstStored.text.trim();
  return peek.text('mimetype')?.trim();
}

/** Where a paragraph is not translated: inside a non-string or formula spreadsheet cell. */
function kept(p: XmlElement): boolean {
  for (let el = p.parent; el !== undefined; el = el.parent) {
    if (el.uri === TABLE && (el.local === 'table-cell' || el.local === 'covered-table-cell')) {
      const attr = (local: string, uri: string): string | undefined => [...el!.attrs.values()].find((a) => a.local === local && a.uri === uri)?.value;
      const type = attr('value-type', OFFICE);
      return attr('formula', TABLE) !== undefined || (type !== undefined && type !== 'string');
    }
  }
  return false;
}

/** Text as ODF writes it: a space after a space is <text:s/> (ODF collapses runs of spaces in text). */
function odfText(prefix: string, text: string): string {
  return xmlText(text).replace(/ {2,}/g, (spaces) => ` <${prefix}s ${prefix}c="${spaces.length - 1}"/>`);
}

function paragraphUnit(part: XmlPart, p: XmlElement): PartUnit | undefined {
  const src = part.text;
  const prefix = p.name.includes(':') ? `${p.name.split(':')[0]}:` : '';
  const para = new NestedParagraph();
  const slice = (el: XmlElement) => (render: Render) => render(el.start, el.end);
  const content = (children: readonly (XmlElement | string)[]): Inline[] =>
    children.flatMap((c): Inline[] => {
      if (!isElement(c)) return [c.replace(/[ \t\r\n]+/g, ' ')];
      if (isText(c, 's')) {
        const count = Number([...c.attrs.values()].find((a) => a.local === 'c')?.value ?? '1');
        return [' '.repeat(Number.isInteger(count) && count > 0 && count < 1000 ? count : 1)];
      }
      if (isText(c, 'tab', 'line-break')) return [para.br(src.slice(c.start, c.end))];
      if (isText(c, 'soft-page-break')) return [];
      if (isText(c, 'span', 'a') && c.openEnd !== c.end) return [para.wrap(src.slice(c.start, c.openEnd), `</${c.name}>`, content(c.children))];
      // Fields (page number, date, sheet name…) read as words; notes, frames and annotations are objects.
      if (c.uri === TEXT && !isText(c, 'note', 'bookmark', 'bookmark-start', 'bookmark-end', 'reference-mark-start', 'reference-mark-end')) {
        return [para.token(slice(c), textOfOdf(c))];
      }
      return [para.token(slice(c))];
    });
  return para.unit(content(p.children), p.start, p.end, {
    head: () => src.slice(p.start, p.openEnd),
    tail: `</${p.name}>`,
    text: (text) => odfText(prefix, text),
    implicit: (open) => open.startsWith(`<${prefix}span`),
  });
}

function textOfOdf(el: XmlElement): string {
  return el.children.map((c) => (isElement(c) ? (isText(c, 's') ? ' ' : textOfOdf(c)) : c)).join('');
}

function paragraphs(part: XmlPart, within: (p: XmlElement) => boolean): PartUnit[] {
  return findAll(part.root, (el) => isText(el, 'p', 'h') && el.openEnd !== el.end, true)
    .filter((p) => within(p) && !kept(p))
    .map((p) => paragraphUnit(part, p))
    .filter((u): u is PartUnit => u !== undefined);
}

/** fo:language / fo:country set to the target (a country only when the target names a region). */
function languageEdits(part: XmlPart, target: string): { start: number; end: number; text: string }[] {
  const [language, ...rest] = target.split('-');
  const region = rest.find((s) => /^[A-Za-z]{2}$|^\d{3}$/.test(s));
  return findAll(part.root, (el) => [...el.attrs.values()].some((a) => a.uri === FO && a.local === 'language'), true).map((el) => {
    let tag = part.text.slice(el.start, el.openEnd);
    for (const [qname, a] of el.attrs) {
      if (a.uri !== FO) continue;
      if (a.local === 'language') tag = withAttribute(tag, qname, language!.toLowerCase());
      if (a.local === 'country') tag = region ? withAttribute(tag, qname, region.toUpperCase()) : tag.replace(new RegExp(`\\s${qname}\\s*=\\s*(["'])[^"']*\\1`), '');
    }
    return { start: el.start, end: el.openEnd, text: tag };
  });
}

function dcLanguageEdits(part: XmlPart, target: string) {
  return findAll(part.root, (el) => el.uri === DC && el.local === 'language' && el.openEnd !== el.end).map((el) => ({
    start: el.openEnd,
    end: el.end - `</${el.name}>`.length,
    text: escapeXmlText(target),
  }));
}

function plan(kind: string) {
  return (zip: Entries): Map<string, PartPlan> => {
    if (zip.get('META-INF/manifest.xml') !== undefined) {
      const manifest = zip.xml('META-INF/manifest.xml');
      if (findAll(manifest.root, (el) => el.uri === MANIFEST && el.local === 'encryption-data').length > 0) {
        throw new DocumentError(`The ${kind} file is encrypted (password-protected); save it without a password and try again.`);
      }
    }
    const plans = new Map<string, PartPlan>();
    const content = zip.xml('content.xml');
    plans.set('content.xml', { units: paragraphs(content, () => true), edits: (t) => languageEdits(content, t) });
    if (zip.get('styles.xml') !== undefined) {
      const styles = zip.xml('styles.xml');
      const inMasterPage = (p: XmlElement): boolean => {
        for (let el = p.parent; el !== undefined; el = el.parent) if (el.uri === STYLE && el.local === 'master-page') return true;
        return false;
      };
      plans.set('styles.xml', { units: paragraphs(styles, inMasterPage), edits: (t) => languageEdits(styles, t) });
    }
    if (zip.get('meta.xml') !== undefined) {
      const meta = zip.xml('meta.xml');
      plans.set('meta.xml', { units: [], edits: (t) => dcLanguageEdits(meta, t) });
    }
    return plans;
  };
}

/** `alsoTypes`: packages of the same content under another media type, read and written as this format. */
function odfFormat(id: 'odt' | 'odp' | 'ods', kind: string, mediaType: string, alsoTypes: readonly string[] = []): DocumentFormat {
  return {
    id,
    mediaType,
    extension: id,
    sniff: (bytes) => {
      const type = packageMimetype(bytes);
      return type === mediaType || (type !== undefined && alsoTypes.includes(type));
    },
    open: (bytes, limits) => openZipDocument(bytes, limits, kind, plan(kind)),
  };
}

const ODF = 'application/vnd.oasis.opendocument.';
// LibreOffice Writer/Web saves HTML-minded text documents as text-web: the same office:text body.
export const odt = odfFormat('odt', 'ODT', `${ODF}text`, [`${ODF}text-web`]);
export const odp = odfFormat('odp', 'ODP', `${ODF}presentation`);
export const ods = odfFormat('ods', 'ODS', `${ODF}spreadsheet`);

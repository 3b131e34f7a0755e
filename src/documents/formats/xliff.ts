// XLIFF 1.2 and 2.x: each translatable <source> is a unit, its translation written into the <target> beside it
// (replacing its content, or a new <target> right after </source>); <file target-language> (1.2) or <xliff
// trgLang> (2.x) is set to the target. Units and groups with translate="no" are left alone. Everything else
// is the source's own bytes: the file is spliced, never re-serialised.
import { PieceWriter } from './pieces.ts';
import { decodeText, textHead } from './text-file.ts';
import { DocumentError, type DocumentFormat } from './types.ts';
import { xmlInline } from './xml-inline.ts';
import { escapeXmlAttribute, isWellFormed, scanXml, type XmlElement } from './xml-scan.ts';

const PAIRED = new Set(['g', 'mrk', 'pc']);
const XLIFF_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:\w+:)?xliff[\s>]/;

interface Edit {
  start: number;
  end: number;
  /** A fixed replacement, or the translation of unit `unit` rendered. */
  text?: (target: string) => string;
  unit?: { html: string; render(t: string): string; before: string; after: string };
}

/** The start tag with attribute `name` set to `value` (added before the tag's end when missing). */
function withAttribute(tag: string, name: string, value: string): string {
  const attr = new RegExp(`(\\s${name.replace(':', '\\:')}\\s*=\\s*)(["'])[^"']*\\2`);
  if (attr.test(tag)) return tag.replace(attr, (_a, before: string, q: string) => `${before}${q}${escapeXmlAttribute(value)}${q}`);
  return tag.replace(/\s*(\/?)>$/, (end, slash: string) => ` ${name}="${escapeXmlAttribute(value)}"${slash ? '/' : ''}>`);
}

export function openXliff(text: string): { edits: Edit[] } {
  const edits: Edit[] = [];
  let version2 = false;
  let sawRoot = false;
  /** Depth of the innermost translate="no" ancestor, or -1. */
  let noTranslateDepth = -1;
  let source: XmlElement | undefined;
  let sourceInner: [number, number] | undefined;
  let target: { start: number; end: number; innerStart: number; innerEnd: number; openTag: string; selfClosing: boolean } | undefined;
  let sourceEnd = 0;
  const depthOf = new Map<XmlElement, number>();
  scanXml(text, 'XLIFF', {
    open(el, depth) {
      depthOf.set(el, depth);
      if (depth === 0) {
        sawRoot = true;
        if (el.local !== 'xliff') throw new DocumentError(`The file's root element is <${el.name}>, not <xliff>.`);
        version2 = (el.attributes.version ?? '').startsWith('2') || (el.attributes.xmlns ?? '').includes('xliff:document:2');
        if (version2) edits.push({ start: el.openStart, end: el.openEnd, text: (t) => withAttribute(text.slice(el.openStart, el.openEnd), 'trgLang', t) });
      }
      if (!version2 && el.local === 'file') {
        edits.push({ start: el.openStart, end: el.openEnd, text: (t) => withAttribute(text.slice(el.openStart, el.openEnd), 'target-language', t) });
      }
      if (noTranslateDepth < 0 && el.attributes.translate === 'no') noTranslateDepth = depth;
      if (el.local === 'trans-unit' || el.local === 'segment') {
        source = undefined;
        target = undefined;
      }
      if (el.local === 'source' && !source && depth > 1) source = el;
    },
    close(el, closeStart, closeEnd) {
      const depth = depthOf.get(el)!;
      depthOf.delete(el);
      if (el === source) {
        sourceInner = el.selfClosing ? undefined : [el.openEnd, closeStart];
        sourceEnd = closeEnd;
      } else if (el.local === 'target' && source && !target) {
        target = { start: el.openStart, end: closeEnd, innerStart: el.openEnd, innerEnd: closeStart, openTag: text.slice(el.openStart, el.openEnd), selfClosing: el.selfClosing };
      } else if ((el.local === 'trans-unit' || el.local === 'segment') && source) {
        if (noTranslateDepth < 0 && sourceInner && /\p{L}/u.test(text.slice(...sourceInner))) addUnit(el);
        source = undefined;
        target = undefined;
      }
      if (depth === noTranslateDepth) noTranslateDepth = -1;
    },
  });
  if (!sawRoot) throw new DocumentError('The XLIFF file has no root element.');

  function addUnit(_unit: XmlElement): void {
    const inline = xmlInline(text.slice(...sourceInner!), PAIRED);
    if (target && !target.selfClosing) {
      edits.push({ start: target.innerStart, end: target.innerEnd, unit: { ...inline, before: '', after: '' } });
    } else if (target) {
      const open = target.openTag.replace(/\s*\/>$/, '>');
      edits.push({ start: target.start, end: target.end, unit: { ...inline, before: open, after: '</target>' } });
    } else {
      // The new <target> goes on its own line with <source>'s indentation when <source> starts its line: only the
      // blanks before it are looked at (a search back for the line's start would read the whole file on every unit
      // of a file that is one long line).
      let lineStart = source!.openStart;
      while (lineStart > 0 && (text[lineStart - 1] === ' ' || text[lineStart - 1] === '\t')) lineStart--;
      const indent = text.slice(lineStart, source!.openStart);
      const before = text[lineStart - 1] === '\n' ? `${text[lineStart - 2] === '\r' ? '\r\n' : '\n'}${indent}<target>` : '<target>';
      edits.push({ start: sourceEnd, end: sourceEnd, unit: { ...inline, before, after: '</target>' } });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  return { edits };
}

export const xliff: DocumentFormat = {
  id: 'xliff',
  mediaType: 'application/xliff+xml',
  extension: 'xlf',
  // The root element is <xliff> (a DOCTYPE before it is recognised here, to be refused by name when opened).
  sniff: (bytes) => XLIFF_ROOT.test(textHead(bytes)),
  async open(bytes, limits) {
    const file = decodeText(bytes, 'XLIFF');
    const { edits } = openXliff(file.text);
    const out = new PieceWriter(limits.maxUnits);
    let at = 0;
    for (const e of edits) {
      out.keep(file.text.slice(at, e.start));
      if (e.text) {
        const fixed = e.text;
        out.unitless(fixed);
      } else {
        const u = e.unit!;
        out.keep(u.before);
        out.unit(u.html, (t) => u.render(t));
        out.keep(u.after);
      }
      at = e.end;
    }
    out.keep(file.text.slice(at));
    return out.document(file.encoding, (doc) => {
      if (!isWellFormed(doc)) throw new Error('xliff: the written file is not well-formed');
      return doc;
    });
  },
};

// XLIFF 1.2 and 2.x: each translatable <source> is a unit, its translation written into the <target> beside it
// (replacing its content, or a new <target> right after </source>); <file target-language> (1.2) or <xliff
// trgLang> (2.x) is set to the target. Units and groups with translate="no" are left alone. Everything else
// is the source's own bytes: the file is spliced, never re-serialised.
// When a translation memory was used, each unit records what it did: XLIFF 1.2 <target state> (a memory's exact
// segments 'translated' / exact-match, machine translations 'needs-review-translation' / mt-suggestion) and the
// memory's matches as <alt-trans match-quality>; XLIFF 2.x <segment state> ('final' from the memory, 'translated'
// with subState dragoman:mt from the machine) and <mtc:matches> before the segment.
import { PieceWriter } from './pieces.ts';
import { decodeText, textHead } from './text-file.ts';
import { DocumentError, type DocumentFormat, type UnitNote } from './types.ts';
import { xmlInline } from './xml-inline.ts';
import { escapeXmlAttribute, isWellFormed, scanXml, type XmlElement } from './xml-scan.ts';

const PAIRED = new Set(['g', 'mrk', 'pc']);
const XLIFF_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:\w+:)?xliff[\s>]/;

interface Edit {
  start: number;
  end: number;
  /** A fixed replacement, or the translation of unit `unit` rendered. */
  text?: (target: string) => string;
  unit?: { html: string; render(t: string): string; before: string | ((note: UnitNote | undefined) => string); after: string };
  /** Text written from the memory's note of the previous or next unit (`otherwise` without one). */
  note?: { which: 'previous' | 'next'; render(note: UnitNote): string; otherwise: string };
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The 1.2 <target> start tag with the state of its unit's translation. */
function stated12(tag: string, note: UnitNote | undefined): string {
  if (!note) return tag;
  const memory = note.origin === 'memory';
  return withAttribute(withAttribute(tag, 'state', memory ? 'translated' : 'needs-review-translation'), 'state-qualifier', memory ? 'exact-match' : 'mt-suggestion');
}

function altTrans(note: UnitNote, indent: string): string {
  return note.matches.map((m) => `${indent}<alt-trans match-quality="${m.similarity}" origin="translation-memory"><source>${xmlText(m.source)}</source><target>${xmlText(m.target)}</target></alt-trans>`).join('');
}

function mtcMatches(note: UnitNote): string {
  if (!note.matches.length) return '';
  return `<mtc:matches xmlns:mtc="urn:oasis:names:tc:xliff:matches:2.0">${note.matches.map((m) =>
    `<mtc:match similarity="${m.similarity.toFixed(1)}" origin="translation-memory"><source>${xmlText(m.source)}</source><target>${xmlText(m.target)}</target></mtc:match>`).join('')}</mtc:matches>`;
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
  let segmentEl: XmlElement | undefined;
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
        segmentEl = el.local === 'segment' ? el : undefined;
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
        if (noTranslateDepth < 0 && sourceInner && /\p{L}/u.test(text.slice(...sourceInner))) addUnit(el, closeStart);
        source = undefined;
        target = undefined;
      }
      if (depth === noTranslateDepth) noTranslateDepth = -1;
    },
  });
  if (!sawRoot) throw new DocumentError('The XLIFF file has no root element.');

  function addUnit(unit: XmlElement, closeStart: number): void {
    const inline = xmlInline(text.slice(...sourceInner!), PAIRED);
    // The line break and indentation of <source>, for what is written beside it.
    const lineStart = text.lastIndexOf('\n', source!.openStart - 1);
    const indent = text.slice(lineStart + 1, source!.openStart);
    const newline = /^[ \t]*$/.test(indent) && lineStart >= 0 ? `${text[lineStart - 1] === '\r' ? '\r\n' : '\n'}${indent}` : '';
    if (version2 && segmentEl && unit === segmentEl) {
      const seg = segmentEl;
      const tag = text.slice(seg.openStart, seg.openEnd);
      edits.push({
        start: seg.openStart, end: seg.openEnd,
        note: {
          which: 'next', otherwise: tag,
          render: (n) => {
            const matches = mtcMatches(n);
            const stated = n.origin === 'memory' ? withAttribute(tag, 'state', 'final') : withAttribute(withAttribute(tag, 'state', 'translated'), 'subState', 'dragoman:mt');
            const segIndent = text.slice(text.lastIndexOf('\n', seg.openStart - 1) + 1, seg.openStart);
            return matches ? `${matches}${/^[ \t]*$/.test(segIndent) ? `\n${segIndent}` : ''}${stated}` : stated;
          },
        },
      });
    }
    const state = (open: string) => (note: UnitNote | undefined) => (version2 ? open : stated12(open, note));
    if (target && !target.selfClosing) {
      edits.push({ start: target.start, end: target.end, unit: { ...inline, before: state(target.openTag), after: '</target>' } });
    } else if (target) {
      const open = target.openTag.replace(/\s*\/>$/, '>');
      edits.push({ start: target.start, end: target.end, unit: { ...inline, before: state(open), after: '</target>' } });
    } else {
      // The new <target> goes on its own line with <source>'s indentation when <source> has one.
      const open = state('<target>');
      edits.push({ start: sourceEnd, end: sourceEnd, unit: { ...inline, before: (n) => `${newline}${open(n)}`, after: '</target>' } });
    }
    let end = closeStart;
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    if (!version2) edits.push({ start: end, end, note: { which: 'previous', otherwise: '', render: (n) => altTrans(n, newline || '') } });
  }
  // Stable: an insertion at a unit's end stays after the unit's own edit.
  edits.sort((a, b) => a.start - b.start);
  return { edits };
}

export const xliff: DocumentFormat = {
  id: 'xliff',
  mediaType: 'application/xliff+xml',
  extension: 'xlf',
  // The root element is <xliff> (a DOCTYPE before it is recognised here, to be refused by name when opened).
  sniff: (bytes) => XLIFF_ROOT.test(textHead(bytes)),
  async open(bytes) {
    const file = decodeText(bytes, 'XLIFF');
    const { edits } = openXliff(file.text);
    const out = new PieceWriter();
    let at = 0;
    for (const e of edits) {
      out.keep(file.text.slice(at, e.start));
      if (e.text) {
        const fixed = e.text;
        out.unitless(fixed);
      } else if (e.note) {
        out.note(e.note.which, e.note.render, e.note.otherwise);
      } else {
        const u = e.unit!;
        const before = u.before;
        out.unit(u.html, (t, _target, note) => (typeof before === 'string' ? before : before(note)) + u.render(t) + u.after);
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

// XLIFF 1.2 and 2.x: each translatable <source> is a unit, its translation written into the <target> beside it
// (replacing its content, or a new <target> right after </source>); <file target-language> (1.2) or <xliff
// trgLang> (2.x) is set to the target. Units and groups with translate="no" are left alone. Everything else
// is the source's own bytes: the file is spliced, never re-serialised.
//
// A document translated with a memory also says where each translation came from (docs/memories.md): 1.2 sets
// `state` and `state-qualifier` on the <target> and adds the memory's fuzzy matches as <alt-trans> after it; 2.x
// sets `state` (and `subState`) on the <segment> and adds the matches as <mtc:matches> first in the <unit>.
import { PieceWriter, type UnitRef } from './pieces.ts';
import { decodeText, textHead } from './text-file.ts';
import { DocumentError, type DocumentFormat, type UnitNote } from './types.ts';
import { xmlInline } from './xml-inline.ts';
import { escapeXmlAttribute, escapeXmlText, isWellFormed, scanXml, type XmlElement } from './xml-scan.ts';

const PAIRED = new Set(['g', 'mrk', 'pc']);
const XLIFF_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:\w+:)?xliff[\s>]/;

interface Edit {
  start: number;
  end: number;
  /** A fixed replacement, or the translation of unit `unit` rendered. */
  text?: (target: string) => string;
  unit?: {
    html: string;
    render(t: string): string;
    before: (note: UnitNote | undefined, target: string) => string;
    after: (note: UnitNote | undefined, target: string) => string;
    ref: UnitRef;
  };
  /** Text that depends on the notes of units (their memory origin). */
  noted?: { refs: UnitRef[]; render(notes: (UnitNote | undefined)[] | undefined, target: string): string };
}

/** 2.x: a <unit>'s segments that are units here, and the prefix of its elements' names. */
interface Unit2 {
  prefix: string;
  segments: { id: string; generated: boolean }[];
  refs: UnitRef[];
}

const MATCHES_NS = 'urn:oasis:names:tc:xliff:matches:2.0';

/** XLIFF 1.2's `state` and `state-qualifier` of a translation, by where it came from. */
function state12(note: UnitNote): [string, string] {
  if (note.origin === 'reviewed') return ['final', 'exact-match'];
  if (note.origin === 'learned') return ['translated', 'exact-match'];
  return ['needs-review-translation', 'leveraged-mt'];
}

/** The start tag without attribute `name`. */
function withoutAttribute(tag: string, name: string): string {
  return tag.replace(new RegExp(`\\s${name.replace(':', '\\:')}\\s*=\\s*(["'])[^"']*\\1`), '');
}

/** XLIFF 2.x's segment start tag with `state` (and `subState` for a machine translation). */
function segmentTag2(tag: string, note: UnitNote): string {
  const plain = withoutAttribute(tag, 'subState');
  if (note.origin === 'reviewed') return withAttribute(plain, 'state', 'final');
  if (note.origin === 'learned') return withAttribute(plain, 'state', 'translated');
  return withAttribute(withAttribute(plain, 'state', 'translated'), 'subState', 'dragoman:needs-review-translation');
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
  /** 2.x: the <unit> being read, the segments (units here) it holds and where its matches would go. */
  let unit2: Unit2 | undefined;
  let segmentsSeen = 0;
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
      if (version2 && el.local === 'unit') {
        const group = { prefix: el.name.includes(':') ? el.name.slice(0, el.name.indexOf(':') + 1) : '', segments: [], refs: [] };
        unit2 = group;
        // `refs` is filled as the unit's segments are read, before anything is written.
        edits.push({ start: el.openEnd, end: el.openEnd, noted: { refs: group.refs, render: (notes, t) => matches2(group, notes, t) } });
      }
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
      } else if (el.local === 'unit' && version2) {
        unit2 = undefined;
      } else if ((el.local === 'trans-unit' || el.local === 'segment') && source) {
        if (noTranslateDepth < 0 && sourceInner && /\p{L}/u.test(text.slice(...sourceInner))) addUnit(el);
        source = undefined;
        target = undefined;
      }
      if (depth === noTranslateDepth) noTranslateDepth = -1;
    },
  });
  if (!sawRoot) throw new DocumentError('The XLIFF file has no root element.');

  /** The line break and indentation before the element at `start` when it starts its line, else ''. */
  function lineBefore(start: number): string {
    // Only the blanks before it are looked at (a search back for the line's start would read the whole file on
    // every unit of a file that is one long line).
    let lineStart = start;
    while (lineStart > 0 && (text[lineStart - 1] === ' ' || text[lineStart - 1] === '\t')) lineStart--;
    const indent = text.slice(lineStart, start);
    return text[lineStart - 1] === '\n' ? `${text[lineStart - 2] === '\r' ? '\r\n' : '\n'}${indent}` : '';
  }

  function addUnit(segment: XmlElement): void {
    const inline = xmlInline(text.slice(...sourceInner!), PAIRED);
    const ref: UnitRef = {};
    // 1.2: the state on the <target>, the matches after it, on the <target>'s line.
    const tag12 = (tag: string, note: UnitNote | undefined) => {
      if (version2 || !note) return tag;
      const [state, qualifier] = state12(note);
      return withAttribute(withAttribute(tag, 'state', state), 'state-qualifier', qualifier);
    };
    const alt12 = (line: string) => (note: UnitNote | undefined, t: string) =>
      version2 || !note ? '' : note.matches.map((m) =>
        `${line}<alt-trans match-quality="${m.similarity}" origin="dragoman-memory"><source>${escapeXmlText(m.source)}</source>` +
        `<target xml:lang="${escapeXmlAttribute(t)}">${escapeXmlText(m.target)}</target></alt-trans>`).join('');
    if (target && !target.selfClosing) {
      const close = text.slice(target.innerEnd, target.end);
      const openTag = target.openTag;
      const line = lineBefore(target.start);
      edits.push({ start: target.start, end: target.end, unit: { ...inline, ref, before: (n) => tag12(openTag, n), after: (n, t) => close + alt12(line)(n, t) } });
    } else if (target) {
      const open = target.openTag.replace(/\s*\/>$/, '>');
      const line = lineBefore(target.start);
      edits.push({ start: target.start, end: target.end, unit: { ...inline, ref, before: (n) => tag12(open, n), after: (n, t) => '</target>' + alt12(line)(n, t) } });
    } else {
      // The new <target> goes on its own line with <source>'s indentation when <source> starts its line.
      const line = lineBefore(source!.openStart);
      edits.push({ start: sourceEnd, end: sourceEnd, unit: { ...inline, ref, before: (n) => line + tag12('<target>', n), after: (n, t) => '</target>' + alt12(line)(n, t) } });
    }
    if (version2 && segment.local === 'segment') {
      const tag = text.slice(segment.openStart, segment.openEnd);
      const given = segment.attributes.id;
      const entry = { id: given ?? `dragoman-s${++segmentsSeen}`, generated: given === undefined };
      unit2?.segments.push(entry);
      unit2?.refs.push(ref);
      edits.push({
        start: segment.openStart, end: segment.openEnd,
        noted: {
          refs: [ref],
          render: (notes) => {
            const note = notes?.[0];
            if (!note) return tag;
            const withId = entry.generated && note.matches.length ? withAttribute(tag, 'id', entry.id) : tag;
            return segmentTag2(withId, note);
          },
        },
      });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  return { edits };
}

/** 2.x: the memory's fuzzy matches of a unit's segments, as the first child of the <unit> (none: nothing). */
function matches2(group: Unit2, notes: (UnitNote | undefined)[] | undefined, target: string): string {
  if (!notes) return '';
  const p = group.prefix;
  const items = group.segments.flatMap((seg, i) => (notes[i]?.matches ?? []).map((m) =>
    `<mtc:match ref="#${escapeXmlAttribute(seg.id)}" similarity="${m.similarity}" type="tm" origin="dragoman-memory">` +
    `<${p}source>${escapeXmlText(m.source)}</${p}source><${p}target xml:lang="${escapeXmlAttribute(target)}">${escapeXmlText(m.target)}</${p}target></mtc:match>`));
  return items.length ? `<mtc:matches xmlns:mtc="${MATCHES_NS}">${items.join('')}</mtc:matches>` : '';
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
      } else if (e.noted) {
        out.noted(e.noted.refs, e.noted.render);
      } else {
        const u = e.unit!;
        out.noted([u.ref], (notes, t) => u.before(notes?.[0], t));
        out.unit(u.html, (t) => u.render(t), u.ref);
        out.noted([u.ref], (notes, t) => u.after(notes?.[0], t));
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

// XML parts of zip documents: parsed (saxes, namespaces resolved) into a light tree that remembers where each
// element sits in the source text, so a part is rewritten by replacing only the ranges we translate; the rest
// of the part is its own characters. A DOCTYPE is refused before anything else is read: no DTD means no
// external entities (XXE) and no entity expansion (billion laughs) can happen.
import { parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import { SaxesParser } from 'saxes';
import { DocumentError } from './types.ts';

export interface XmlElement {
  /** Qualified name as written (`w:p`). */
  name: string;
  local: string;
  uri: string;
  /** Attributes by qualified name as written. */
  attrs: Map<string, { value: string; uri: string; local: string }>;
  children: XmlNode[];
  parent: XmlElement | undefined;
  /** Offsets in the source: `<` of the start tag, just after its `>`, just after the end tag. */
  start: number;
  openEnd: number;
  end: number;
}

export type XmlNode = XmlElement | string;

export function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== 'string';
}

export interface XmlPart {
  text: string;
  root: XmlElement;
}

export function decodeXml(data: Uint8Array, where: string): string {
  if (data.length >= 2 && ((data[0] === 0xfe && data[1] === 0xff) || (data[0] === 0xff && data[1] === 0xfe))) {
    throw new DocumentError(`${where} is UTF-16 encoded, which is not supported.`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new DocumentError(`${where} is not valid UTF-8.`);
  }
}

/**
 * `xhtml`: an EPUB content document may start with `<!DOCTYPE html …>` and (EPUB 2) use HTML's named
 * entities. Its DOCTYPE is accepted only without an internal subset: entities can only be declared there
 * (saxes never fetches an external DTD), so no declared entity exists, and HTML's names decode to their text.
 */
export function parseXml(text: string, where: string, options: { xhtml?: boolean } = {}): XmlPart {
  return read(text, where, options, true)!;
}

/**
 * Throws DocumentError unless `text` is well-formed XML (namespaces included) under the same rules as parseXml,
 * without building its tree: a check of what a format wrote.
 */
export function checkXml(text: string, where: string, options: { xhtml?: boolean } = {}): void {
  read(text, where, options, false);
}

function read(text: string, where: string, options: { xhtml?: boolean }, build: boolean): XmlPart | undefined {
  const parser = new SaxesParser({ xmlns: true, position: build });
  if (options.xhtml) parser.ENTITIES = htmlEntities(parser.ENTITIES);
  const doc: XmlElement = { name: '', local: '', uri: '', attrs: new Map(), children: [], parent: undefined, start: 0, openEnd: 0, end: text.length };
  let current = doc;
  let pendingStart = 0;
  const fail = (why: string): never => {
    throw new DocumentError(`${where} is not well-formed XML (${why}).`);
  };
  parser.on('doctype', (doctype) => {
    if (options.xhtml && !doctype.includes('[')) return;
    throw new DocumentError(`${where} declares a DOCTYPE; document XML with a DTD is refused (external entities and entity expansion).`);
  });
  parser.on('error', (err) => fail(err.message));
  const run = (): void => {
    try {
      parser.write(text).close();
    } catch (err) {
      if (err instanceof DocumentError) throw err;
      fail((err as Error).message);
    }
  };
  if (!build) {
    let rooted = false;
    parser.on('opentagstart', () => (rooted = true));
    run();
    if (!rooted) fail('no root element');
    return undefined;
  }
  parser.on('opentagstart', () => {
    pendingStart = text.lastIndexOf('<', parser.position - 1);
  });
  parser.on('opentag', (tag) => {
    const attrs = new Map<string, { value: string; uri: string; local: string }>();
    for (const [qname, a] of Object.entries(tag.attributes)) attrs.set(qname, { value: a.value, uri: a.uri, local: a.local });
    const el: XmlElement = {
      name: tag.name,
      local: tag.local,
      uri: tag.uri,
      attrs,
      children: [],
      parent: current,
      start: pendingStart,
      openEnd: parser.position,
      end: parser.position,
    };
    current.children.push(el);
    current = el;
  });
  parser.on('closetag', () => {
    current.end = parser.position;
    current = current.parent ?? doc;
  });
  parser.on('text', (t) => current.children.push(t));
  parser.on('cdata', (t) => current.children.push(t));
  run();
  const root = doc.children.find(isElement);
  if (root === undefined) fail('no root element');
  return { text, root: root as XmlElement };
}

export function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Characters XML 1.0 does not allow, should a translation ever contain one. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Translated text as XML character data: escaped, without the characters XML cannot hold. */
export function xmlText(text: string): string {
  return escapeXmlText(text.replace(NOT_XML, ''));
}

export function escapeXmlAttribute(text: string): string {
  return text.replace(/[&<"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&quot;'));
}

/** All descendants (document order) for which `take` is true; it does not look inside what it took unless `inside`. */
export function findAll(root: XmlElement, take: (el: XmlElement) => boolean, inside = false): XmlElement[] {
  const out: XmlElement[] = [];
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    const taken = el !== root && take(el);
    if (taken) out.push(el);
    if (!taken || inside) for (let i = el.children.length - 1; i >= 0; i--) if (isElement(el.children[i]!)) stack.push(el.children[i] as XmlElement);
  }
  return out;
}

export function textOf(el: XmlElement): string {
  return el.children.map((c) => (isElement(c) ? textOf(c) : c)).join('');
}

/** A start tag (`<w:lang w:val="en-US"/>`) with one attribute's value set, added when missing. */
export function withAttribute(startTag: string, qname: string, value: string): string {
  const escaped = escapeXmlAttribute(value);
  const re = new RegExp(`(\\s${qname.replace(/[.:-]/g, '\\$&')}\\s*=\\s*)(["'])[^"']*\\2`);
  if (re.test(startTag)) return startTag.replace(re, (_m, head: string) => `${head}"${escaped}"`);
  return startTag.replace(/\s*(\/?>)$/, ` ${qname}="${escaped}"$1`);
}

/** One replacement of a source range; `text` is asked for only when the range is written. */
export interface Edit {
  start: number;
  end: number;
  text: () => string;
}

/**
 * A part's text with ranges replaced. Edits may nest (a text box's paragraphs inside a paragraph): an edit
 * inside another is not applied here but by the outer edit's own `text()`, which renders its pieces with
 * `render` again.
 */
export class Rewriter {
  private readonly edits: Edit[] = [];
  private sorted = true;

  constructor(readonly source: string) {}

  add(edit: Edit): void {
    this.edits.push(edit);
    this.sorted = false;
  }

  get size(): number {
    return this.edits.length;
  }

  render(start = 0, end = this.source.length): string {
    if (!this.sorted) {
      this.edits.sort((a, b) => a.start - b.start || b.end - a.end);
      this.sorted = true;
    }
    let lo = 0;
    let hi = this.edits.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.edits[mid]!.start < start) lo = mid + 1;
      else hi = mid;
    }
    let out = '';
    let at = start;
    for (let i = lo; i < this.edits.length && this.edits[i]!.start < end; i++) {
      const edit = this.edits[i]!;
      if (edit.start < at || edit.end > end) continue;
      out += this.source.slice(at, edit.start) + edit.text();
      at = edit.end;
    }
    return out + this.source.slice(at, end);
  }
}

/** XML's five entities plus HTML's named ones (decoded by the HTML parser, one name at a time, only when used). */
function htmlEntities(xml: Record<string, string>): Record<string, string> {
  const cache = new Map<string, string | undefined>();
  return new Proxy(xml, {
    get(target, name) {
      if (typeof name !== 'string') return undefined;
      if (name in target) return target[name];
      if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(name)) return undefined;
      if (!cache.has(name)) {
        const node = parseFragment(`&${name};`).childNodes[0];
        const value = node?.nodeName === '#text' ? (node as T.TextNode).value : undefined;
        cache.set(name, value === `&${name};` ? undefined : value);
      }
      return cache.get(name);
    },
  });
}

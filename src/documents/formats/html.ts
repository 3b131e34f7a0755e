// HTML and XHTML: the whole document is one unit for the html path (which keeps every tag, comment and the
// doctype byte for byte and translates text, titles and alt text); the result's root element gets the target's
// `lang` (and `xml:lang` in XHTML). The document is read by parse5, an HTML parser: no DTD or entity of an
// XHTML file is ever processed.
import { PieceWriter } from './pieces.ts';
import { decodeText, extensionOf, textHead } from './text-file.ts';
import type { DocumentFormat } from './types.ts';

const HTML_HEAD = /<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]/i;
const XHTML_NS = /xmlns\s*=\s*["']http:\/\/www\.w3\.org\/1999\/xhtml["']/;

/** Sets (or adds) an attribute of the first `<html>` start tag. */
function setRootAttribute(doc: string, name: string, value: string): string {
  const tag = /<html\b[^>]*>/i.exec(doc);
  if (!tag) return doc;
  const attr = new RegExp(`(\\s${name.replace(':', '\\:')}\\s*=\\s*)(["'])[^"']*\\2`, 'i');
  const updated = attr.test(tag[0])
    ? tag[0].replace(attr, (_all, before: string, q: string) => `${before}${q}${value}${q}`)
    : tag[0].replace(/^<html\b/i, (h) => `${h} ${name}="${value}"`);
  return doc.slice(0, tag.index) + updated + doc.slice(tag.index + tag[0].length);
}

function markupFormat(xhtml: boolean): DocumentFormat {
  return {
    id: xhtml ? 'xhtml' : 'html',
    mediaType: xhtml ? 'application/xhtml+xml' : 'text/html; charset=utf-8',
    extension: xhtml ? 'xhtml' : 'html',
    sniff(bytes, filename) {
      const head = textHead(bytes);
      if (!HTML_HEAD.test(head)) return false;
      const isXhtml = ['xhtml', 'xht'].includes(extensionOf(filename)) || /^\s*<\?xml/.test(head) || XHTML_NS.test(head);
      return isXhtml === xhtml;
    },
    async open(bytes) {
      const file = decodeText(bytes, xhtml ? 'XHTML' : 'HTML');
      const out = new PieceWriter();
      out.unit(file.text, (t) => t);
      return out.document(file.encoding, (doc, target) => {
        const withLang = setRootAttribute(doc, 'lang', target);
        return xhtml ? setRootAttribute(withLang, 'xml:lang', target) : withLang;
      });
    },
  };
}

export const html = markupFormat(false);
export const xhtml = markupFormat(true);

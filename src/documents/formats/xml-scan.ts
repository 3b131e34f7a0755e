// XML read with saxes, a non-validating parser that never processes a DTD: a document with a DOCTYPE is refused
// outright (no entity of any kind can be declared, so XXE and entity expansion cannot happen), and every element
// is reported with its offsets in the source string so a format can splice the source instead of re-serialising.
import { SaxesParser } from 'saxes';
import { DocumentError } from './types.ts';

export interface XmlElement {
  name: string;
  /** Local name (prefix dropped). */
  local: string;
  attributes: Record<string, string>;
  /** Offsets of the start tag: [openStart, openEnd). */
  openStart: number;
  openEnd: number;
  selfClosing: boolean;
}

export interface XmlVisitor {
  open?(el: XmlElement, depth: number): void;
  /** `closeStart..closeEnd` is the end tag (equal to the start tag's range for a self-closing element). */
  close?(el: XmlElement, closeStart: number, closeEnd: number): void;
}

/** Parses `text` whole; throws DocumentError naming the first problem (`what` names the file kind). */
export function scanXml(text: string, what: string, visitor: XmlVisitor = {}): void {
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  let failure: Error | undefined;
  parser.on('doctype', () => {
    throw new DocumentError(`The ${what} file has a DOCTYPE declaration: DTDs are refused (they can declare entities that read local files or expand without bound). Remove the DOCTYPE and send it again.`);
  });
  parser.on('error', (err) => {
    failure ??= err;
  });
  parser.on('opentag', (tag) => {
    const openEnd = parser.position;
    const openStart = text.lastIndexOf('<', openEnd - 1);
    const name = tag.name;
    const el: XmlElement = {
      name,
      local: name.includes(':') ? name.slice(name.indexOf(':') + 1) : name,
      attributes: tag.attributes as Record<string, string>,
      openStart,
      openEnd,
      selfClosing: tag.isSelfClosing,
    };
    visitor.open?.(el, stack.length);
    stack.push(el);
  });
  parser.on('closetag', () => {
    const el = stack.pop()!;
    if (el.selfClosing) return visitor.close?.(el, el.openStart, el.openEnd);
    const closeEnd = parser.position;
    visitor.close?.(el, text.lastIndexOf('</', closeEnd - 1), closeEnd);
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    failure ??= err as Error;
  }
  if (failure) throw new DocumentError(`The ${what} file is not well-formed XML: ${failure.message.slice(0, 200)}.`);
}

/** Whether `text` parses as XML without a DTD (for checking what a format wrote). */
export function isWellFormed(text: string): boolean {
  try {
    scanXml(text, 'XML');
    return true;
  } catch {
    return false;
  }
}

export const escapeXmlText = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
export const escapeXmlAttribute = (s: string): string => escapeXmlText(s).replace(/"/g, '&quot;');

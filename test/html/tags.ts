// Test helpers: what of an HTML string must survive translation (tags, skipped elements, text).
import { parse, parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import { isHtmlDocument } from '../../src/text/html/index.ts';

const TRANSLATED = new Set(['title', 'alt', 'placeholder', 'aria-label']);
const SKIPPED = new Set(['script', 'style', 'code', 'pre', 'kbd', 'samp', 'var', 'textarea', 'noscript', 'svg', 'math', 'template', 'iframe']);

function root(html: string): T.ParentNode {
  const options = { sourceCodeLocationInfo: true } as const;
  return isHtmlDocument(html) ? parse(html, options) : parseFragment(html, options);
}

function children(node: T.ParentNode): T.ChildNode[] {
  return node.nodeName === 'template' ? (node as T.Template).content.childNodes : node.childNodes;
}

/**
 * Opening and closing of every element in tree order, with its attributes (values of the translated
 * attributes left out, since those are supposed to change), plus comments and doctypes.
 */
export function tagEvents(html: string, only: 'tree' | 'written' = 'tree'): string[] {
  const events: string[] = [];
  const seen = new Set<number>();
  const visit = (node: T.ChildNode): void => {
    if (node.nodeName === '#text') return;
    if (node.nodeName === '#comment') return void events.push(`<!--${(node as T.CommentNode).data}-->`);
    if (node.nodeName === '#documentType') return void events.push(`<!doctype ${(node as T.DocumentType).name}>`);
    const el = node as T.Element;
    const start = el.sourceCodeLocation?.startTag?.startOffset;
    // 'written': only elements whose start tag is in the source (not implied, not re-opened by the parser).
    if (only === 'written' && (start === undefined || seen.has(start))) {
      for (const child of children(el)) visit(child);
      return;
    }
    if (start !== undefined) seen.add(start);
    const attrs = el.attrs.map((a) => (TRANSLATED.has(a.name) ? a.name : `${a.name}=${JSON.stringify(a.value)}`));
    events.push(`<${el.tagName}${attrs.length ? ' ' + attrs.join(' ') : ''}>`);
    for (const child of children(el)) visit(child);
    events.push(`</${el.tagName}>`);
  };
  for (const child of root(html).childNodes) visit(child);
  return events;
}

/** Element names and attribute names present anywhere in the parsed HTML. */
export function markupVocabulary(html: string): Set<string> {
  return new Set(tagEvents(html).filter((e) => !e.startsWith('</') && !e.startsWith('<!')).flatMap((e) => {
    const [name, ...rest] = e.slice(1, -1).split(' ');
    return [name!, ...rest.map((r) => `${name}@${r.split('=')[0]}`)];
  }));
}

/** HTML's translate switch of one element: false for translate="no"/notranslate, true for "yes"/"", else inherited. */
function ownMode(el: T.Element): boolean | undefined {
  if (el.attrs.some((a) => a.name === 'class' && a.value.split(' ').includes('notranslate'))) return false;
  const t = el.attrs.find((a) => a.name === 'translate')?.value.toLowerCase();
  return t === 'no' ? false : t === 'yes' || t === '' ? true : undefined;
}

function hasTranslatedPart(el: T.Element): boolean {
  return children(el).some((c) => 'tagName' in c && (ownMode(c as T.Element) === true || hasTranslatedPart(c as T.Element)));
}

/**
 * Source bytes that are never translated, in order: the content of every skipped element (its own title,
 * alt, placeholder, aria-label are translated: they are compared by tagEvents), and the whole of every
 * element under translate="no" / notranslate (attributes included), except the translate="yes" parts inside.
 */
export function skippedSources(html: string): string[] {
  const out: string[] = [];
  const visit = (node: T.ChildNode, translated: boolean): void => {
    if (!('tagName' in node)) return;
    const el = node as T.Element;
    const mode = ownMode(el) ?? translated;
    const loc = el.sourceCodeLocation;
    const written = loc?.startTag !== undefined && loc.endTag !== undefined;
    if (!mode && !hasTranslatedPart(el)) {
      if (written) out.push(html.slice(loc!.startOffset, loc!.endOffset));
      return;
    }
    if (SKIPPED.has(el.tagName) && mode) {
      if (written) out.push(html.slice(loc!.startTag!.endOffset, loc!.endTag!.startOffset));
      return;
    }
    for (const child of children(el)) visit(child, mode);
  };
  for (const child of root(html).childNodes) visit(child, true);
  return out;
}

/** The decoded text content of an HTML string, outside script/style. */
export function textContent(html: string): string {
  let text = '';
  const visit = (node: T.ChildNode): void => {
    if (node.nodeName === '#text') text += (node as T.TextNode).value;
    else if ('tagName' in node && !['script', 'style'].includes((node as T.Element).tagName)) for (const c of children(node as T.Element)) visit(c);
  };
  for (const child of root(html).childNodes) visit(child);
  return text;
}

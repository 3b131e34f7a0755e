// The element structure of a parsed string: what must come out of a translation unchanged. Used to check an
// assembled output by parsing it again (the parser's own repairs depend on where text is).
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { TRANSLATED_ATTRIBUTES } from './elements.ts';

/** Every element in tree order with its attributes (translated attribute values left out). */
export function structureOf(root: T.ParentNode): string {
  const out: string[] = [];
  const visit = (node: T.ChildNode): void => {
    if (!('tagName' in node)) return;
    const el = node as T.Element;
    const attrs = el.attrs.map((a) => (TRANSLATED_ATTRIBUTES.includes(a.name) ? a.name : `${a.name}=${JSON.stringify(a.value)}`));
    out.push(`<${el.tagName} ${attrs.join(' ')}>`);
    const children = el.nodeName === 'template' ? (el as T.Template).content.childNodes : el.childNodes;
    for (const child of children) visit(child);
    out.push(`</${el.tagName}>`);
  };
  for (const child of root.childNodes) visit(child);
  return out.join('');
}

// The element structure of a parsed string: what must come out of a translation unchanged. Used to check an
// assembled output by parsing it again (the parser's own repairs depend on where text is).
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { TRANSLATED_ATTRIBUTES } from './elements.ts';

/** Every element in tree order with its attributes (translated attribute values left out). */
export function structureOf(root: T.ParentNode): string {
  const out: string[] = [];
  // An explicit stack, not recursion: the tree may be thousands of elements deep.
  const stack: (T.ChildNode | string)[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') {
      out.push(node);
      continue;
    }
    if (!('tagName' in node)) continue;
    const el = node as T.Element;
    const attrs = el.attrs.map((a) => (TRANSLATED_ATTRIBUTES.includes(a.name) ? a.name : `${a.name}=${JSON.stringify(a.value)}`));
    out.push(`<${el.tagName} ${attrs.join(' ')}>`);
    stack.push(`</${el.tagName}>`);
    const children = el.nodeName === 'template' ? (el as T.Template).content.childNodes : el.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out.join('');
}

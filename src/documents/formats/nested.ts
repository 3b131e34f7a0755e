// Paragraphs whose formatting is nested elements around text (OpenDocument's text:span and text:a, XHTML's
// inline elements): each element is a wrapper written back as its own start tag and end tag around the words
// it came back around; text outside every wrapper is the paragraph's own.
import { heaviestWrap, serialize, translatedPieces, type Inline } from './inline.ts';
import { OpaquePieces, paragraphUnit } from './paragraph.ts';
import type { PartUnit, Render } from './package.ts';

export class NestedParagraph {
  private readonly wraps: { open: string; close: string }[] = [];
  private readonly wrapIds = new Map<string, number>();
  private readonly opaque = new OpaquePieces();

  /** Wrappers with the same start tag share an id, so adjacent ones merge. */
  wrap(open: string, close: string, children: Inline[]): Inline {
    const key = `${open}\u0000${close}`;
    let id = this.wrapIds.get(key);
    if (id === undefined) {
      id = this.wraps.push({ open, close }) - 1;
      this.wrapIds.set(key, id);
    }
    return { wrap: id, children };
  }

  /** An opaque piece: `xml` is asked for at write time, with the translated ranges inside it already rendered. */
  token(xml: (render: Render) => string, words?: string): Inline {
    return this.opaque.token(xml, words?.trim() === '' ? undefined : words);
  }

  br(xml: string): Inline {
    return this.opaque.br(xml);
  }

  /** The unit replacing [start, end) with head + content + tail; `text` writes translated text as markup. */
  unit(
    nodes: Inline[],
    start: number,
    end: number,
    o: { head: (target: string) => string; tail: string; text: (text: string) => string; implicit?: (open: string) => boolean },
  ): PartUnit | undefined {
    return paragraphUnit(nodes, start, end, this.opaque, { head: o.head, tail: () => o.tail }, (all) => {
      const base = o.implicit ? this.implicitWrap(all, o.implicit) : undefined;
      const body = base === undefined ? all : all.flatMap((n) => (typeof n === 'object' && 'wrap' in n && n.wrap === base ? n.children : [n]));
      return {
        nodes: body,
        content: (translation, _target, render) => {
          const pieces = translatedPieces(body, translation).map((p) => (base !== undefined && p.wraps.length === 0 ? { ...p, wraps: [base] } : p));
          return serialize(pieces, {
            structural: () => true,
            open: (w) => this.wraps[w]!.open,
            close: (w) => this.wraps[w]!.close,
            text: (text) => o.text(text),
            ...this.opaque.writers(render),
          });
        },
      };
    });
  }

  /**
   * When every piece of text of the paragraph sits in a wrapper (a presentation's runs are each a styled span),
   * the most used of those that `implicit` allows is left out of the unit: plain words carry no tag, and come
   * back inside it.
   */
  private implicitWrap(nodes: readonly Inline[], implicit: (open: string) => boolean): number | undefined {
    if (nodes.some((n) => typeof n === 'string' && n.trim() !== '')) return undefined;
    return heaviestWrap(nodes, (w) => implicit(this.wraps[w]!.open));
  }
}

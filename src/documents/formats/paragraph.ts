// What the two paragraph models (nested.ts, runs.ts) share: the opaque pieces of a paragraph (objects kept as they
// are, line breaks), numbered as it is read and written back as they were; and the unit a paragraph becomes, its
// leading and trailing pieces left outside the translation.
import { hasText, inlineHtml, mergeAdjacent, splitEdges, textLength, type Inline, type Serializer } from './inline.ts';
import type { PartUnit, Render } from './package.ts';

export class OpaquePieces {
  private readonly tokens: ((render: Render) => string)[] = [];
  private readonly brs: string[] = [];

  /** An object kept as it is: `xml` is asked for at write time, with the translated ranges inside it rendered. */
  token(xml: (render: Render) => string, words?: string): Inline {
    const id = this.tokens.push(xml) - 1;
    return words === undefined ? { token: id } : { token: id, words };
  }

  br(xml: string): Inline {
    return { br: this.brs.push(xml) - 1 };
  }

  /** How serialize() writes a token or a break of the translated content. */
  writers(render: Render): Pick<Serializer, 'token' | 'br'> {
    return { token: (id) => this.tokens[id]!(render), br: (id) => this.brs[id]! };
  }

  /** Tokens and breaks left out of the translation (a paragraph's edges), as they were. */
  write(nodes: readonly Inline[], render: Render): string {
    return nodes.map((n) => (typeof n === 'object' && 'token' in n ? this.tokens[n.token]!(render) : this.brs[(n as { br: number }).br]!)).join('');
  }
}

/** What a paragraph model sends for the body of a paragraph, and how it writes the translation back. */
export interface Translatable {
  /** The nodes sent as the unit's HTML (the body, less any wrapper left implicit). */
  nodes: Inline[];
  content(translation: string, target: string, render: Render): string;
}

/**
 * The unit replacing source [start, end) of a paragraph of `nodes` with head(target) + content + tail(target), the
 * leading and trailing tokens and breaks written back as they were around the content. Undefined when there is
 * nothing to translate.
 */
export function paragraphUnit(
  nodes: Inline[],
  start: number,
  end: number,
  opaque: OpaquePieces,
  frame: { head: (target: string) => string; tail: (target: string) => string },
  translatable: (body: Inline[]) => Translatable,
): PartUnit | undefined {
  const { lead, body, tail } = splitEdges(mergeAdjacent(nodes));
  if (!hasText(body)) return undefined;
  const sent = translatable(body);
  return {
    html: inlineHtml(sent.nodes),
    chars: textLength(body),
    start,
    end,
    build: (translation, target, render) =>
      frame.head(target) + opaque.write(lead, render) + sent.content(translation, target, render) + opaque.write(tail, render) + frame.tail(target),
  };
}

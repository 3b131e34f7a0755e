// The opaque pieces of a paragraph (objects kept as they are, line breaks): numbered as the paragraph is read,
// written back as they were, around and inside the translated content.
import type { Inline, Serializer } from './inline.ts';
import type { Render } from './package.ts';

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

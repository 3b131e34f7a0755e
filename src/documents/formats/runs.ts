// Office Open XML paragraphs (Word's w:p, PowerPoint's a:p, Excel's rich strings) are flat lists of runs, each
// a set of properties plus text. A paragraph becomes one unit: each run's properties are a wrapper (the most
// used ones in a paragraph or link are left implicit, so plain text carries no tags), links are wrappers
// around runs, everything else is a token. The translation comes back as runs again: each translated piece
// of text in a run with the properties of the wrapper it came back in.
import { heaviestWrap, serialize, translatedPieces, type Inline } from './inline.ts';
import { OpaquePieces, paragraphUnit } from './paragraph.ts';
import type { PartUnit, Render } from './package.ts';
import { xmlText } from './xml.ts';

export interface RunSyntax {
  /** A run holding `text` with these properties (already language-tagged). */
  run(props: string, text: string): string;
  /** Run properties with their language set to the target (unchanged when they name none). */
  retag(props: string, target: string): string;
}

type Wrap = { kind: 'run'; props: string } | { kind: 'link'; open: string; close: string };

export class RunParagraph {
  private readonly wraps: Wrap[] = [];
  private readonly runIds = new Map<string, number>();
  private readonly opaque = new OpaquePieces();

  constructor(private readonly syntax: RunSyntax) {}

  /** The wrapper for runs with these properties (equal properties share one, so adjacent runs merge). */
  run(props: string, children: Inline[]): Inline {
    let id = this.runIds.get(props);
    if (id === undefined) {
      id = this.wraps.push({ kind: 'run', props }) - 1;
      this.runIds.set(props, id);
    }
    return { wrap: id, children };
  }

  link(open: string, close: string, children: Inline[]): Inline {
    return { wrap: this.wraps.push({ kind: 'link', open, close }) - 1, children };
  }

  /** An object kept as it is: `xml` is asked for at write time, with the translated ranges inside it rendered. */
  token(xml: (render: Render) => string, words?: string): Inline {
    return this.opaque.token(xml, words);
  }

  br(xml: string): Inline {
    return this.opaque.br(xml);
  }

  /**
   * The unit for a paragraph whose content is `nodes`, replacing source range [start, end) with
   * head(target) + content + tail(target). Undefined when there is nothing to translate.
   */
  unit(nodes: Inline[], start: number, end: number, head: (target: string) => string, tail: (target: string) => string): PartUnit | undefined {
    return paragraphUnit(nodes, start, end, this.opaque, { head, tail }, (body) => {
      const bases = new Map<number, string>();
      const implicit = this.implicitRuns(body, -1, bases);
      const propsFor = (wraps: readonly number[]): string => {
        const run = [...wraps].reverse().find((w) => this.wraps[w]!.kind === 'run');
        if (run !== undefined) return (this.wraps[run] as { props: string }).props;
        const link = wraps.find((w) => this.wraps[w]!.kind === 'link');
        return bases.get(link ?? -1) ?? bases.get(-1) ?? '';
      };
      return {
        nodes: implicit,
        content: (translation, target, render) =>
          serialize(translatedPieces(implicit, translation), {
            structural: (w) => this.wraps[w]!.kind === 'link',
            open: (w) => (this.wraps[w] as { open: string }).open,
            close: (w) => (this.wraps[w] as { close: string }).close,
            text: (text, wraps) => this.syntax.run(this.syntax.retag(propsFor(wraps), target), xmlText(text)),
            ...this.opaque.writers(render),
          }),
      };
    });
  }

  /** The nodes with the container's most used run properties unwrapped (recorded in `bases` under the container: -1 or a link). */
  private implicitRuns(nodes: Inline[], container: number, bases: Map<number, string>): Inline[] {
    const base = heaviestWrap(nodes, (w) => this.wraps[w]!.kind === 'run');
    if (base !== undefined) bases.set(container, (this.wraps[base] as { props: string }).props);
    return nodes.flatMap((n): Inline[] => {
      if (typeof n !== 'object' || !('wrap' in n)) return [n];
      if (n.wrap === base) return n.children;
      if (this.wraps[n.wrap]!.kind === 'link') return [{ wrap: n.wrap, children: this.implicitRuns(n.children, n.wrap, bases) }];
      return [n];
    });
  }
}

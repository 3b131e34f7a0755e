// A paragraph's inline content as the HTML unit the format=html path translates, and the translated HTML
// back as pieces the format writes out. The vocabulary:
//   <span data-w="N">…</span>  a wrapper (a run's properties, a link, a styled span) around the words it covers
//   <img data-t="N">           an opaque inline object kept as it is (an image, a bookmark, a field's code)
//   <code data-t="N">…</code>  an opaque object read as words (a field's shown value): the engine sees a placeholder
//   <br data-b="N">            a break inside the paragraph (line break, tab): sentences never run across it
// N indexes the format's own table of what each tag stands for. Tags come back from the html path around the
// words they covered; the parse below takes them as they come and repairs what could break the file's structure.
import { parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';

export type Inline =
  | string
  | { wrap: number; children: Inline[] }
  | { token: number; words?: string }
  | { br: number };

/** One piece of a translated unit, with the wrappers around it (outermost first). */
export type Piece = ({ text: string } | { token: number } | { br: number }) & { wraps: number[] };

function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

export function inlineHtml(nodes: readonly Inline[]): string {
  let out = '';
  for (const node of nodes) {
    if (typeof node === 'string') out += escapeHtml(node);
    else if ('wrap' in node) out += `<span data-w="${node.wrap}">${inlineHtml(node.children)}</span>`;
    else if ('br' in node) out += `<br data-b="${node.br}">`;
    else if (node.words !== undefined) out += `<code data-t="${node.token}">${escapeHtml(node.words)}</code>`;
    else out += `<img data-t="${node.token}">`;
  }
  return out;
}

/** Whether the nodes carry any letters or digits to translate. */
export function hasText(nodes: readonly Inline[]): boolean {
  return nodes.some((n) => (typeof n === 'string' ? /[\p{L}\p{N}]/u.test(n) : 'wrap' in n && hasText(n.children)));
}

function collect(nodes: readonly Inline[], tokens: number[], brs: number[]): void {
  for (const n of nodes) {
    if (typeof n === 'string') continue;
    if ('wrap' in n) collect(n.children, tokens, brs);
    else if ('br' in n) brs.push(n.br);
    else tokens.push(n.token);
  }
}

/** Adjacent wrappers of the same kind become one (a sentence split into runs for no visible reason). */
export function mergeAdjacent(nodes: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (typeof n === 'string' && typeof last === 'string') out[out.length - 1] = last + n;
    else if (typeof n === 'object' && 'wrap' in n && typeof last === 'object' && last !== undefined && 'wrap' in last && last.wrap === n.wrap) {
      out[out.length - 1] = { wrap: n.wrap, children: mergeAdjacent([...last.children, ...n.children]) };
    } else out.push(typeof n === 'object' && 'wrap' in n ? { wrap: n.wrap, children: mergeAdjacent(n.children) } : n);
  }
  return out;
}

/**
 * The translated unit as pieces in output order. Every token and break of the source comes out exactly once
 * and in source order (a field's begin, separator and end must stay in sequence): one that went missing is
 * added at the end, a copy is dropped, and out-of-order ones are renumbered in source order.
 */
export function translatedPieces(source: readonly Inline[], html: string): Piece[] {
  const tokens: number[] = [];
  const brs: number[] = [];
  collect(source, tokens, brs);
  const pieces: Piece[] = [];
  const walk = (parent: T.ParentNode, wraps: number[]): void => {
    for (const node of parent.childNodes) {
      if (node.nodeName === '#text') {
        const text = (node as T.TextNode).value;
        if (text !== '') pieces.push({ text, wraps });
        continue;
      }
      if (!('tagName' in node)) continue;
      const el = node as T.Element;
      const attr = (name: string): number | undefined => {
        const a = el.attrs.find((x) => x.name === name);
        return a === undefined ? undefined : Number(a.value);
      };
      const w = attr('data-w');
      const t = attr('data-t');
      const b = attr('data-b');
      if (t !== undefined) pieces.push({ token: t, wraps });
      else if (b !== undefined) pieces.push({ br: b, wraps });
      else walk(el, w !== undefined ? [...wraps, w] : wraps);
    }
  };
  walk(parseFragment(html), []);
  return [...repairOrder(pieces, tokens, 'token'), ...missing(pieces, tokens, 'token'), ...missing(pieces, brs, 'br')].filter(
    (p, i, all) => !('br' in p) || (brs.includes(p.br) && all.findIndex((q) => 'br' in q && q.br === p.br) === i),
  );
}

function repairOrder(pieces: Piece[], ids: readonly number[], kind: 'token'): Piece[] {
  const known = new Set(ids);
  const seen = new Set<number>();
  const kept = pieces.filter((p) => {
    if (!(kind in p)) return true;
    const id = (p as { token: number }).token;
    if (!known.has(id) || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const order = ids.filter((id) => seen.has(id));
  let k = 0;
  return kept.map((p) => (kind in p ? { token: order[k++]!, wraps: p.wraps } : p));
}

function missing(pieces: readonly Piece[], ids: readonly number[], kind: 'token' | 'br'): Piece[] {
  const seen = new Set(pieces.filter((p) => kind in p).map((p) => (p as unknown as Record<string, number>)[kind]));
  return ids.filter((id) => !seen.has(id)).map((id) => (kind === 'token' ? { token: id, wraps: [] } : { br: id, wraps: [] }));
}

/** Leading and trailing tokens and breaks stay where they are, outside the unit: only what lies between is translated. */
export function splitEdges(nodes: readonly Inline[]): { lead: Inline[]; body: Inline[]; tail: Inline[] } {
  const isText = (n: Inline): boolean => typeof n === 'string' || 'wrap' in n;
  let a = 0;
  while (a < nodes.length && !isText(nodes[a]!)) a++;
  let b = nodes.length;
  while (b > a && !isText(nodes[b - 1]!)) b--;
  return { lead: nodes.slice(0, a), body: nodes.slice(a, b), tail: nodes.slice(b) };
}

/** Code points of the text a unit sends to translation (tokens' own words are not sent). */
export function textLength(nodes: readonly Inline[]): number {
  let n = 0;
  for (const node of nodes) {
    if (typeof node === 'string') n += [...node].length;
    else if ('wrap' in node) n += textLength(node.children);
  }
  return n;
}

/**
 * The wrapper at the top level of `nodes` that `accept` allows and that covers the most text (each of its
 * occurrences counting one more, so a run of spaces still weighs): the one a paragraph can leave implicit.
 */
export function heaviestWrap(nodes: readonly Inline[], accept: (wrap: number) => boolean): number | undefined {
  const weight = new Map<number, number>();
  for (const n of nodes) {
    if (typeof n === 'object' && 'wrap' in n && accept(n.wrap)) weight.set(n.wrap, (weight.get(n.wrap) ?? 0) + textLength(n.children) + 1);
  }
  let heaviest: number | undefined;
  for (const [id, w] of weight) if (heaviest === undefined || w > weight.get(heaviest)!) heaviest = id;
  return heaviest;
}

export interface Serializer {
  /** Wrappers that are elements of their own in the output (the others only tell how text is written). */
  structural(wrap: number): boolean;
  open(wrap: number): string;
  close(wrap: number): string;
  text(text: string, wraps: readonly number[]): string;
  token(id: number, wraps: readonly number[]): string;
  br(id: number, wraps: readonly number[]): string;
}

/** Pieces back to markup: structural wrappers opened and closed around consecutive pieces that share them. */
export function serialize(pieces: readonly Piece[], s: Serializer): string {
  let out = '';
  let open: number[] = [];
  for (const piece of pieces) {
    const chain = piece.wraps.filter((w) => s.structural(w));
    let keep = 0;
    while (keep < open.length && keep < chain.length && open[keep] === chain[keep]) keep++;
    for (let i = open.length - 1; i >= keep; i--) out += s.close(open[i]!);
    for (let i = keep; i < chain.length; i++) out += s.open(chain[i]!);
    open = chain;
    if ('text' in piece) out += s.text(piece.text, piece.wraps);
    else if ('token' in piece) out += s.token(piece.token, piece.wraps);
    else out += s.br(piece.br, piece.wraps);
  }
  for (let i = open.length - 1; i >= 0; i--) out += s.close(open[i]!);
  return out;
}

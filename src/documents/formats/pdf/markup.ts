// A block's runs as the inline markup every format's units share (src/documents/formats/inline.ts), and the
// translated markup back as runs. One table of wrappers serves the whole document: 0 bold, 1 italic, 2 bold
// italic, and 3 + k the document's link k (its words inside, styled or not), so the html path keeps each run's
// style and each link around the words the translation gives them.
import { decodeText } from '../fragment.ts';
import { inlineHtml, mergeAdjacent, translatedPieces, type Inline } from '../inline.ts';
import type { Run } from './blocks.ts';
import type { Fill } from './content.ts';

const BOLD = 0;
const ITALIC = 1;
const BOLD_ITALIC = 2;
const FIRST_LINK = 3;

function styled(run: Run): Inline {
  const wrap = run.bold && run.italic ? BOLD_ITALIC : run.bold ? BOLD : run.italic ? ITALIC : undefined;
  return wrap === undefined ? run.text : { wrap, children: [run.text] };
}

const plain = (r: Run | undefined) => r !== undefined && !r.bold && !r.italic && r.link === undefined;

/** Spaces at a styled or linked run's edges moved into the plain run beside it: the wrappers hold words only. */
function tidy(source: readonly Run[]): Run[] {
  const runs = source.map((r) => ({ ...r }));
  runs.forEach((r, i) => {
    const prev = runs[i - 1];
    const next = runs[i + 1];
    if (plain(r)) return;
    const lead = /^\s+/.exec(r.text)?.[0] ?? '';
    if (lead && plain(prev)) {
      prev!.text += lead;
      r.text = r.text.slice(lead.length);
    }
    const trail = /\s+$/.exec(r.text)?.[0] ?? '';
    if (trail && r.text.length > trail.length && plain(next)) {
      next!.text = trail + next!.text;
      r.text = r.text.slice(0, -trail.length);
    }
  });
  return runs.filter((r) => r.text !== '');
}

/** The block's runs as inline nodes: styles wrapped, links wrapped around their styled runs. */
export function blockNodes(source: readonly Run[]): Inline[] {
  const runs = tidy(source);
  const nodes: Inline[] = [];
  for (let i = 0; i < runs.length; ) {
    const link = runs[i]!.link;
    let j = i;
    while (j < runs.length && runs[j]!.link === link) j++;
    const group = runs.slice(i, j).map(styled);
    if (link === undefined) nodes.push(...group);
    else nodes.push({ wrap: FIRST_LINK + link, children: group });
    i = j;
  }
  return mergeAdjacent(nodes);
}

export const blockHtml = (runs: readonly Run[]): string => inlineHtml(blockNodes(runs));

const OWN_MARKUP = /^(?:[^<]|<span data-w="\d+">|<\/span>)*$/;

/**
 * The pieces of a translation that holds nothing but the wrappers the block was sent with, read without an HTML
 * parse (the common case, and an HTML parser's cost per block); anything else (undefined) goes to the full parse.
 */
function ownPieces(html: string): { text: string; wraps: number[] }[] | undefined {
  if (!OWN_MARKUP.test(html)) return undefined;
  const pieces: { text: string; wraps: number[] }[] = [];
  const open: number[] = [];
  for (const m of html.matchAll(/<span data-w="(\d+)">|<\/span>|[^<]+/g)) {
    if (m[1] !== undefined) open.push(Number(m[1]));
    else if (m[0] === '</span>') {
      if (open.length === 0) return undefined;
      open.pop();
    } else pieces.push({ text: decodeText(m[0]), wraps: [...open] });
  }
  return pieces;
}

/**
 * The colour a translated run takes from the source: its link's words' colour, else that of the source's run in
 * its style (bold, italic); a plain run takes none (the block's colour).
 */
function colorFor(source: readonly Run[], run: Run): Fill | undefined {
  if (run.link !== undefined) return source.find((r) => r.link === run.link)?.color;
  if (run.bold || run.italic) return source.find((r) => r.link === undefined && r.bold === run.bold && r.italic === run.italic)?.color;
  return undefined;
}

/** The translation of a block as runs: each piece styled, linked and coloured by the wrappers around it. */
export function translatedRuns(source: readonly Run[], html: string): Run[] {
  // Markup-free text (most blocks) needs no HTML parse: plain text with its entities decoded.
  if (!html.includes('<')) return [{ text: decodeText(html), bold: false, italic: false, link: undefined }];
  const links = new Set(source.map((r) => r.link).filter((l) => l !== undefined));
  const runs: Run[] = [];
  for (const piece of ownPieces(html) ?? translatedPieces(blockNodes(source), html)) {
    if (!('text' in piece)) continue;
    const w = piece.wraps;
    const bold = w.includes(BOLD) || w.includes(BOLD_ITALIC);
    const italic = w.includes(ITALIC) || w.includes(BOLD_ITALIC);
    // A link the source block does not have (a translator's invention) is dropped.
    const link = w.map((x) => x - FIRST_LINK).filter((l) => links.has(l)).pop();
    const last = runs[runs.length - 1];
    if (last && last.bold === bold && last.italic === italic && last.link === link) last.text += piece.text;
    else runs.push({ text: piece.text, bold, italic, link });
  }
  for (const run of runs) run.color = colorFor(source, run);
  return runs;
}

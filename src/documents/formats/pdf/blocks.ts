// Paragraph blocks from positioned text: pieces of text on one baseline close together make a line, lines one
// under the other with the same size and left edge make a block until a line break looks like a paragraph's end
// (the next line's first word would have fitted on the line before, or the gap is wider than the block's own line
// pitch), and blocks are read in XY-cut order (bands top to bottom, columns left to right inside a band). A hyphen
// at a line's end before a lowercase letter is undone. Only horizontal, upright text takes part; rotated text
// stays in the page as it is. The page's rules (table borders) keep text apart: no line runs across a vertical
// rule, no block across a horizontal one, and a block's room stops at the rules around it, so a table cell is a
// block and its translation stays in the cell.
import { BLACK, type Fill } from './content.ts';
import type { Rule, Rules } from './rules.ts';

/** A piece of text as the page shows it: baseline start (x, y), advance width and font size in page space. */
export interface Fragment {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
  bold: boolean;
  italic: boolean;
  /** The fill colour the text is shown in. */
  color: Fill;
  /** The document link (its index in the plan's links) the text lies under. */
  link?: number | undefined;
}

export type Align = 'left' | 'right' | 'center' | 'justify';

/** A run of a block's text in one style, under one link or none. */
export interface Run {
  text: string;
  bold: boolean;
  italic: boolean;
  link?: number | undefined;
  /** The fill colour (the block's colour where unset). */
  color?: Fill | undefined;
}

/** A paragraph as found on the page, with the room its translation may take. */
export interface Block {
  page: number;
  runs: Run[];
  /** Where the original lines were: left, bottom, right, top (page space, y up). */
  box: [number, number, number, number];
  /** How far the translation may reach (the box grown towards its neighbours). */
  room: [number, number, number, number];
  /** First baseline, font size and line pitch of the original. */
  baseline: number;
  size: number;
  leading: number;
  align: Align;
  lines: number;
  /** The colour most of its text is shown in. */
  color: Fill;
}

interface Line {
  frags: Fragment[];
  x: number;
  right: number;
  y: number;
  size: number;
}

// Scripts written without spaces between words (Korean has them: its lines join with one).
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;
const LETTER = /\p{L}/u;

/** Whether a vertical rule stands between a line's end and a fragment after it on its baseline. */
function ruleAfter(line: Line, f: Fragment, vertical: readonly Rule[]): boolean {
  return vertical.some((r) => r.at >= line.right - 1 && r.at <= f.x + 1 && r.from < f.y + f.size * 0.7 && r.to > f.y);
}

/** Whether a horizontal rule is an underline of the line's own words (just under its baseline, within its ends). */
function underlines(r: Rule, line: Line): boolean {
  return r.at <= line.y && r.at >= line.y - line.size * 0.35 && r.from >= line.x - 1 && r.to <= line.right + 1;
}

/** Whether a horizontal rule runs between an upper line and a lower one, across both (a table's row border). */
function ruleBetween(upper: Line, lower: Line, horizontal: readonly Rule[]): boolean {
  return horizontal.some(
    (r) =>
      r.at < upper.y &&
      r.at > lower.y + lower.size * 0.5 &&
      r.from < upper.right && r.to > upper.x &&
      r.from < lower.right && r.to > lower.x &&
      !underlines(r, upper),
  );
}

/** Lines from fragments: same baseline (within a third of the size), gaps under one size apart, no rule between. */
function linesOf(frags: Fragment[], vertical: readonly Rule[]): Line[] {
  const sorted = frags
    .filter((f) => f.text.trim() !== '' && f.size > 0 && Number.isFinite(f.x + f.y + f.width))
    .sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Line[] = [];
  // Fragments on one baseline arrive together after the sort; each joins the line it continues.
  let row: Line[] = [];
  let rowY = Number.NaN;
  for (const f of sorted) {
    if (!(Math.abs(f.y - rowY) <= f.size * 0.3)) {
      row = [];
      rowY = f.y;
    }
    const line = row.find((l) => f.x >= l.right - f.size * 0.5 && f.x - l.right <= f.size * 1.0 && Math.abs(l.size - f.size) <= l.size * 0.3 && !ruleAfter(l, f, vertical));
    if (line) {
      line.frags.push(f);
      line.right = Math.max(line.right, f.x + f.width);
    } else {
      const l: Line = { frags: [f], x: f.x, right: f.x + f.width, y: f.y, size: f.size };
      row.push(l);
      lines.push(l);
    }
  }
  return lines;
}

/** Width of the first word of a line (estimated from its fragment's width per character). */
function firstWordWidth(line: Line): number {
  const f = line.frags[0]!;
  const word = /^\s*\S+/.exec(f.text)?.[0] ?? f.text;
  return (f.width * word.length) / Math.max(1, f.text.length);
}

/** Lines into blocks, greedily: each line continues the block whose last line sits just above it, no rule between. */
function blocksOf(lines: Line[], horizontal: readonly Rule[]): Line[][] {
  const open: Line[][] = [];
  const done: Line[][] = [];
  for (const line of lines) {
    let joined = false;
    for (let i = 0; i < open.length; i++) {
      const block = open[i]!;
      const last = block[block.length - 1]!;
      const pitch = last.y - line.y;
      const sameSize = Math.abs(last.size - line.size) <= last.size * 0.15;
      const left = Math.min(...block.map((l) => l.x));
      const right = Math.max(line.right, ...block.map((l) => l.right));
      const aligned = Math.abs(line.x - left) <= line.size * 1.2 || (line.x < right && line.right > left && Math.abs((line.x + line.right) / 2 - (last.x + last.right) / 2) < line.size);
      if (pitch <= 0) continue;
      if (pitch > line.size * 1.8) {
        // Too far below: this block takes no more lines.
        if (pitch > line.size * 3) {
          done.push(block);
          open.splice(i--, 1);
        }
        continue;
      }
      if (!sameSize || !aligned || ruleBetween(last, line, horizontal)) continue;
      // A wider pitch than the block's own lines have is a paragraph's spacing.
      const before = block[block.length - 2];
      if (before && pitch - (before.y - last.y) > line.size * 0.25) continue;
      // A short line whose successor's first word would have fitted ends its paragraph.
      const wrapped = last.right + line.size * 0.3 + firstWordWidth(line) > right - line.size * 0.2;
      const endsSentence = /[.!?:。！？]$/.test(last.frags[last.frags.length - 1]!.text.trimEnd());
      if (!wrapped && (endsSentence || line.right - last.right > line.size * 2)) continue;
      block.push(line);
      joined = true;
      break;
    }
    if (!joined) open.push([line]);
  }
  return [...done, ...open];
}

type Box = [number, number, number, number];

/** Reading order by recursive XY-cut: horizontal gaps cut into bands (top first), vertical gaps into columns. */
function xyCut<T>(items: { box: Box; item: T }[], depth = 0): T[] {
  if (items.length <= 1 || depth > 50) return items.sort((a, b) => b.box[3] - a.box[3] || a.box[0] - b.box[0]).map((i) => i.item);
  const cut = (lo: 0 | 1, hi: 2 | 3, descending: boolean): T[] | undefined => {
    const sorted = [...items].sort((a, b) => (descending ? b.box[hi] - a.box[hi] : a.box[lo] - b.box[lo]));
    const groups: (typeof items)[] = [];
    let edge = Number.NaN;
    for (const it of sorted) {
      const start = descending ? it.box[hi] : it.box[lo];
      const gap = descending ? start < edge : start > edge;
      if (groups.length === 0 || gap) {
        groups.push([it]);
        edge = descending ? it.box[lo] : it.box[hi];
      } else {
        groups[groups.length - 1]!.push(it);
        edge = descending ? Math.min(edge, it.box[lo]) : Math.max(edge, it.box[hi]);
      }
    }
    return groups.length > 1 ? groups.flatMap((g) => xyCut(g, depth + 1)) : undefined;
  };
  return cut(1, 3, true) ?? cut(0, 2, false) ?? items.sort((a, b) => b.box[3] - a.box[3] || a.box[0] - b.box[0]).map((i) => i.item);
}

/** A block's runs: lines joined with a space (none between CJK), a line-end hyphen before lowercase undone. */
function runsOf(lines: Line[]): Run[] {
  const runs: Run[] = [];
  const push = (text: string, f: Fragment) => {
    const last = runs[runs.length - 1];
    if (last && last.bold === f.bold && last.italic === f.italic && last.link === f.link && last.color === f.color) last.text += text;
    else runs.push({ text, bold: f.bold, italic: f.italic, link: f.link, color: f.color });
  };
  lines.forEach((line, i) => {
    const frags = [...line.frags].sort((a, b) => a.x - b.x);
    frags.forEach((f, k) => {
      let text = f.text;
      if (k > 0) {
        const prev = frags[k - 1]!;
        // A visible gap with no space on either side is a space the producer left out (positioned words).
        if (f.x - (prev.x + prev.width) > f.size * 0.15 && !/\s$/.test(prev.text) && !/^\s/.test(text)) text = ' ' + text;
      }
      if (i > 0 && k === 0) {
        const prev = runs[runs.length - 1];
        const tail = prev?.text ?? '';
        if (/\p{L}[-\u00ad]$/u.test(tail) && /^\p{Ll}/u.test(text.trimStart())) {
          prev!.text = tail.slice(0, -1);
          text = text.trimStart();
        } else if (tail.endsWith('\u00ad')) {
          prev!.text = tail.slice(0, -1);
          text = text.trimStart();
        } else if (!(CJK.test(tail.slice(-1)) && CJK.test(text.trimStart()[0] ?? '')) && !/\s$/.test(tail)) {
          text = ' ' + text.trimStart();
        }
      }
      push(text, f);
    });
  });
  for (const r of runs) r.text = r.text.replace(/\s+/g, ' ');
  if (runs[0]) runs[0].text = runs[0].text.trimStart();
  if (runs.length) runs[runs.length - 1]!.text = runs[runs.length - 1]!.text.trimEnd();
  return runs.filter((r) => r.text !== '');
}

function alignOf(lines: Line[], page: { left: number; right: number }): Align {
  const tol = lines[0]!.size * 0.5;
  const lefts = lines.map((l) => l.x);
  const rights = lines.map((l) => l.right);
  const spread = (v: number[]) => Math.max(...v) - Math.min(...v);
  if (lines.length > 1) {
    const body = rights.slice(0, -1);
    if (spread(lefts) <= tol && spread(body) <= tol && lines.length > 2) return 'justify';
    if (spread(lefts) <= tol) return 'left';
    if (spread(rights) <= tol) return 'right';
    const centres = lines.map((l) => (l.x + l.right) / 2);
    if (spread(centres) <= tol) return 'center';
    return 'left';
  }
  const l = lines[0]!;
  const centre = (page.left + page.right) / 2;
  if (l.x > page.left + tol * 4 && Math.abs((l.x + l.right) / 2 - centre) <= tol * 2) return 'center';
  if (l.x > page.left + tol * 4 && Math.abs(l.right - page.right) <= tol) return 'right';
  return 'left';
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

/** The colour most of the runs' characters are in (black for none). */
export function dominantColor(runs: readonly Run[], fallback: Fill = BLACK): Fill {
  const chars = new Map<Fill, number>();
  for (const r of runs) if (r.color !== undefined) chars.set(r.color, (chars.get(r.color) ?? 0) + r.text.length);
  let best = fallback;
  let most = 0;
  for (const [color, n] of chars) if (n > most) [best, most] = [color, n];
  return best;
}

/**
 * The room's limits the rules around a box set: the highest horizontal rule under its last baseline, across it
 * (not one of its own underlines), and the nearest vertical rules on its left and right, beside it.
 */
function ruleLimits(box: Box, lines: Line[], rules: Rules): { bottom: number; left: number; right: number } {
  const lastY = lines[lines.length - 1]!.y;
  let bottom = -Infinity;
  for (const r of rules.horizontal) {
    if (r.at < lastY && r.at > bottom && r.from < box[2] && r.to > box[0] && !lines.some((l) => underlines(r, l))) bottom = r.at;
  }
  let left = -Infinity;
  let right = Infinity;
  for (const r of rules.vertical) {
    if (!(r.from < box[3] && r.to > box[1])) continue;
    if (r.at <= box[0] + 0.5 && r.at > left) left = r.at;
    if (r.at >= box[2] - 0.5 && r.at < right) right = r.at;
  }
  return { bottom, left, right };
}

/** The blocks of one page, in reading order, each with the room its translation may take. */
export function pageBlocks(page: number, frags: Fragment[], size: { width: number; height: number }, rules: Rules = { horizontal: [], vertical: [] }): Block[] {
  const lines = linesOf(frags, rules.vertical);
  if (lines.length === 0) return [];
  const area = { left: Math.min(...lines.map((l) => l.x)), right: Math.max(...lines.map((l) => l.right)) };
  const raw = blocksOf(lines, rules.horizontal).map((ls) => {
    const box: Box = [
      Math.min(...ls.map((l) => l.x)),
      Math.min(...ls.map((l) => l.y - l.size * 0.25)),
      Math.max(...ls.map((l) => l.right)),
      Math.max(...ls.map((l) => l.y + l.size * 0.8)),
    ];
    return { box, item: ls };
  });
  const ordered = xyCut(raw);
  const boxes = new Map(raw.map((r) => [r.item, r.box]));
  const blocks: Block[] = [];
  for (const ls of ordered) {
    const runs = runsOf(ls);
    if (!runs.some((r) => LETTER.test(r.text))) continue;
    const box = boxes.get(ls)!;
    const sizeOf = median(ls.map((l) => l.size));
    const pitches = ls.slice(1).map((l, i) => ls[i]!.y - l.y);
    const leading = pitches.length ? median(pitches) : sizeOf * 1.2;
    // Room: to the right up to the next box beside it (or the text area's edge, for one-line blocks), down to
    // the next box below it.
    const others = raw.map((r) => r.box).filter((b) => b !== box);
    const beside = (b: Box) => b[1] < box[3] && b[3] > box[1];
    const below = (b: Box) => b[0] < box[2] && b[2] > box[0] && b[3] <= box[1] + 0.5;
    // Rules around the box bound it: a cell (a rule on each side) is the text area of its one-line text, inset
    // by the text's own padding (the nearer of its two sides, at most a size), so its translation stays inside.
    const ruled = ruleLimits(box, ls, rules);
    const cell = Number.isFinite(ruled.left) && Number.isFinite(ruled.right);
    const inset = cell ? Math.min(sizeOf, Math.max(0, box[0] - ruled.left), Math.max(0, ruled.right - box[2])) : sizeOf * 0.3;
    const inner = cell ? { left: ruled.left + inset, right: ruled.right - inset } : area;
    const rightLimit = Math.min(ls.length > 1 ? box[2] : Math.max(box[2], inner.right), size.width, ruled.right - inset, ...others.filter((b) => beside(b) && b[0] >= box[2] - 0.5).map((b) => b[0] - sizeOf * 0.5));
    const leftLimit = Math.max(0, ruled.left + inset, ...others.filter((b) => beside(b) && b[2] <= box[0] + 0.5).map((b) => b[2] + sizeOf * 0.5));
    const under = others.filter(below).map((b) => b[3] + 1);
    const bottomLimit = Math.max(ruled.bottom, under.length ? Math.min(box[1], Math.max(...under)) : Math.max(0, box[1] - leading * 2));
    const align = alignOf(ls, inner);
    const room: Box = [box[0], Math.min(box[1], bottomLimit), Math.max(box[2], rightLimit), box[3]];
    if (align === 'center' && ls.length === 1) {
      const half = Math.min((box[0] + box[2]) / 2 - Math.max(leftLimit, inner.left), Math.max(box[2], rightLimit) - (box[0] + box[2]) / 2);
      room[0] = Math.min(box[0], (box[0] + box[2]) / 2 - half);
      room[2] = Math.max(box[2], (box[0] + box[2]) / 2 + half);
    }
    if (align === 'right' && ls.length === 1) {
      room[0] = Math.min(box[0], Math.max(leftLimit, inner.left));
      room[2] = box[2];
    }
    blocks.push({ page, runs, box, room, baseline: ls[0]!.y, size: sizeOf, leading, align, lines: ls.length, color: dominantColor(runs) });
  }
  return blocks;
}

// A translated block set into its box: words wrapped to the box's width at the original size, the size lowered in
// 5 % steps until the lines fit the room below (down to the floor: half the original size, never under 4 pt),
// and past the floor set at the floor and let run below the room (nothing is cut). Lines keep the block's
// alignment; a right-to-left translation turns left alignment into right. Bidi is handled at paragraph level:
// the words of a line are laid out right to left, with runs of left-to-right words (numbers, Latin names) kept in
// their order inside it; fontkit shapes Arabic and reverses the glyphs of each right-to-left run. Each run keeps
// its colour (the block's where it has none).
import type { Align, Block, Run } from './blocks.ts';
import type { Fill } from './content.ts';
import { face, faceKey, familyOf, type Family } from './fonts.ts';

/** Smallest size, as a share of the original, a translation is shrunk to before it may overflow. */
export const FLOOR_RATIO = 0.5;
/** Never smaller than this many points. */
export const FLOOR_PT = 4;
const STEP = 0.95;

/** One piece of text to draw: a face, a size, a colour, where its baseline starts, how wide it is, the link it is under. */
export interface Placed {
  text: string;
  face: string;
  color: Fill;
  x: number;
  y: number;
  size: number;
  width: number;
  link: number | undefined;
}

interface Atom {
  /** Parts in one face each (a word in two scripts has two). */
  parts: { text: string; face: string; width: number; link: number | undefined; color: Fill }[];
  width: number;
  /** Followed by a space (a line may break there); CJK characters break without one. */
  space: boolean;
  spaceWidth: number;
  rtl: boolean;
}

const ASCII = /^[\x21-\x7e]+$/;
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/u;
const CJK = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;
const familyCache = new Map<number, Family | undefined>();
const widths = new Map<string, number>();

function familyFor(cp: number): Family | undefined {
  if (!familyCache.has(cp)) familyCache.set(cp, familyOf(cp));
  return familyCache.get(cp);
}

/** Width of `text` in `key`'s face at size 1. */
function widthOf(key: string, text: string): number {
  const id = `${key}\u0000${text}`;
  let w = widths.get(id);
  if (w === undefined) {
    const f = face(key).font;
    w = f.layout(text).advanceWidth / f.unitsPerEm;
    // Words repeat: a layout through the font's OpenType tables is the costly part of setting text.
    if (widths.size < 100_000) widths.set(id, w);
  }
  return w;
}

/** Words (and single CJK characters) with their faces and widths at size 1. */
function atomsOf(runs: readonly Run[], blockColor: Fill): Atom[] {
  const atoms: Atom[] = [];
  for (const run of runs) {
    const color = run.color ?? blockColor;
    const pieces = run.text.replace(/\s+/g, ' ').split(/( )/);
    for (const piece of pieces) {
      if (piece === ' ') {
        const last = atoms[atoms.length - 1];
        if (last) last.space = true;
        continue;
      }
      if (piece === '') continue;
      // CJK characters each make an atom (a line may break between any two).
      const words = CJK.test(piece) ? piece.split(/(?=[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef])/u) : [piece];
      for (const word of words) {
        const parts: Atom['parts'] = [];
        // Printable ASCII (most words of Latin-script text) is all in Noto Sans: one part, no per-character look-up.
        if (ASCII.test(word)) {
          const key = faceKey({ family: 'latin', bold: run.bold, italic: run.italic });
          const width = widthOf(key, word);
          atoms.push({ parts: [{ text: word, face: key, width, link: run.link, color }], width, space: false, spaceWidth: widthOf(key, ' '), rtl: false });
          continue;
        }
        let family: Family = 'latin';
        for (const ch of word) {
          const cp = ch.codePointAt(0)!;
          // Neutral characters stay in the face of the letters before them when it has them.
          const own: Family | undefined = /[\p{L}\p{M}]/u.test(ch) ? familyFor(cp) : face(family).font.hasGlyphForCodePoint(cp) ? family : familyFor(cp);
          family = own ?? family;
          const key = faceKey({ family, bold: run.bold, italic: run.italic });
          const last = parts[parts.length - 1];
          if (last && last.face === key) last.text += ch;
          else parts.push({ text: ch, face: key, width: 0, link: run.link, color });
        }
        for (const p of parts) p.width = widthOf(p.face, p.text);
        const lastFace = parts[parts.length - 1]?.face ?? 'latin';
        atoms.push({ parts, width: parts.reduce((s, p) => s + p.width, 0), space: false, spaceWidth: widthOf(lastFace, ' '), rtl: RTL.test(word) });
      }
    }
  }
  return atoms;
}

function wrap(atoms: Atom[], width: number, size: number): Atom[][] {
  const lines: Atom[][] = [];
  let line: Atom[] = [];
  let w = 0;
  for (const a of atoms) {
    const prev = line[line.length - 1];
    const gap = prev?.space ? prev.spaceWidth * size : 0;
    if (line.length > 0 && w + gap + a.width * size > width) {
      lines.push(line);
      line = [];
      w = 0;
    }
    w += (line.length > 0 ? gap : 0) + a.width * size;
    line.push(a);
  }
  if (line.length) lines.push(line);
  return lines;
}

/** The line's atoms in visual order, for a right-to-left paragraph: reversed, left-to-right runs kept in order. */
function visual(line: Atom[], rtl: boolean): Atom[] {
  if (!rtl) return line;
  const groups: Atom[][] = [];
  for (const a of line) {
    const last = groups[groups.length - 1];
    if (!a.rtl && last && !last[0]!.rtl) last.push(a);
    else groups.push([a]);
  }
  return groups.reverse().flat();
}

/** Whether the translation reads right to left (its first strong letter is Hebrew or Arabic script). */
export function isRtl(text: string): boolean {
  const first = /[\p{L}]/u.exec(text)?.[0] ?? '';
  return RTL.test(first);
}

/** The translated block's pieces to draw, and whether it fitted its room at or above the floor size. */
export function typeset(block: Block, runs: readonly Run[]): { placed: Placed[]; size: number; fitted: boolean } {
  const atoms = atomsOf(runs, block.color);
  const plain = atoms.map((a) => a.parts.map((p) => p.text).join('')).join(' ');
  const rtl = isRtl(plain);
  let align: Align = block.align;
  if (rtl && (align === 'left' || align === 'justify')) align = align === 'left' ? 'right' : 'justify';
  const [left, bottom, right] = block.room;
  const width = Math.max(1, right - left);
  const floor = Math.max(FLOOR_PT, block.size * FLOOR_RATIO);
  let size = block.size;
  let lines: Atom[][] = [];
  let fitted = false;
  for (;;) {
    lines = wrap(atoms, width, size);
    const lead = block.lines > 1 ? (block.leading * size) / block.size : size * 1.2;
    const first = block.baseline + 0.8 * (block.size - size);
    const last = first - (lines.length - 1) * lead;
    const widest = Math.max(0, ...lines.map((l) => lineWidth(l, size)));
    if (last - size * 0.25 >= bottom - 0.5 && widest <= width + 0.5) {
      fitted = true;
      break;
    }
    if (size <= floor) break;
    size = Math.max(floor, size * STEP);
  }
  const lead = block.lines > 1 ? (block.leading * size) / block.size : size * 1.2;
  const first = block.baseline + 0.8 * (block.size - size);
  const placed: Placed[] = [];
  lines.forEach((line, i) => {
    const y = first - i * lead;
    const w = lineWidth(line, size);
    const justify = align === 'justify' && i < lines.length - 1 && line.length > 1;
    const gaps = line.slice(0, -1).filter((a) => a.space).length;
    const extra = justify && gaps > 0 ? (width - w) / gaps : 0;
    let x = align === 'right' || (justify && rtl && extra === 0) ? right - w : align === 'center' ? left + (width - w) / 2 : left;
    if (align === 'justify' && !justify && rtl) x = right - w;
    const order = visual(line, rtl);
    // Whether the next piece continues the last one on this line (same face, right after it): drawn as one string.
    let joinable = false;
    order.forEach((a, k) => {
      for (const p of a.parts) {
        const lastPiece = placed[placed.length - 1];
        // Pieces that follow each other in one face on one line are drawn as one string.
        if (!justify && lastPiece && lastPiece.face === p.face && lastPiece.link === p.link && lastPiece.color === p.color && lastPiece.y === y && joinable) {
          lastPiece.text += p.text;
          lastPiece.width = x + p.width * size - lastPiece.x;
        } else placed.push({ text: p.text, face: p.face, color: p.color, x, y, size, width: p.width * size, link: p.link });
        x += p.width * size;
        joinable = true;
      }
      const next = order[k + 1];
      const spaced = rtl ? next?.space : a.space;
      if (next && spaced) {
        const sw = a.spaceWidth * size + extra;
        const lastPiece = placed[placed.length - 1]!;
        joinable = !justify && next.parts[0]?.face === lastPiece.face && next.parts[0]?.link === lastPiece.link && next.parts[0]?.color === lastPiece.color;
        if (joinable) lastPiece.text += ' ';
        x += sw;
      }
    });
  });
  return { placed, size, fitted };
}

function lineWidth(line: Atom[], size: number): number {
  let w = 0;
  line.forEach((a, i) => {
    w += a.width * size;
    if (i < line.length - 1 && a.space) w += a.spaceWidth * size;
  });
  return w;
}

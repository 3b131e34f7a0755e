// The rules a page draws (table borders, lines between sections): the horizontal and vertical straight pieces of
// its painted paths. A stroked path gives each of its axis-parallel segments; a filled path gives a rule only when
// it is a thin axis-parallel rectangle (a border drawn as a filled bar). Larger filled shapes (cell shading, a
// highlight behind a word) are not rules: their edges run between the lines of one paragraph as often as between
// two cells. Rules keep lines of text apart in blocks.ts.
import type { Painted } from './content.ts';

/** A horizontal rule at height `at` from x `from` to `to`, or a vertical one at x `at` from y `from` to `to`. */
export interface Rule {
  at: number;
  from: number;
  to: number;
}

export interface Rules {
  horizontal: Rule[];
  vertical: Rule[];
}

/** Thicker than this (points), a filled bar is a shape, not a rule. */
const THIN = 3;
/** Shorter than this (points), a piece is a tick or a dot, not a rule. */
const SHORT = 4;
/** Axis-parallel within this (points) over the piece. */
const SLANT = 0.5;
/** Most rules a page keeps (a hostile stream's paths). */
const MAX_RULES = 20_000;

export function emptyRules(): Rules {
  return { horizontal: [], vertical: [] };
}

/** The rules a painted path draws, added to `rules`. */
export function addRules(rules: Rules, path: Painted): void {
  const add = (list: Rule[], at: number, a: number, b: number) => {
    if (Math.abs(b - a) >= SHORT && rules.horizontal.length + rules.vertical.length < MAX_RULES && Number.isFinite(at + a + b)) {
      list.push({ at, from: Math.min(a, b), to: Math.max(a, b) });
    }
  };
  for (const sub of path.subpaths) {
    if (path.stroke) {
      for (let i = 2; i + 1 < sub.length; i += 2) {
        const [x0, y0, x1, y1] = [sub[i - 2]!, sub[i - 1]!, sub[i]!, sub[i + 1]!];
        if (Math.abs(y1 - y0) <= SLANT) add(rules.horizontal, (y0 + y1) / 2, x0, x1);
        else if (Math.abs(x1 - x0) <= SLANT) add(rules.vertical, (x0 + x1) / 2, y0, y1);
      }
    }
    if (path.fill && !path.stroke) {
      let [left, bottom, right, top] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let i = 0; i + 1 < sub.length; i += 2) {
        left = Math.min(left, sub[i]!);
        right = Math.max(right, sub[i]!);
        bottom = Math.min(bottom, sub[i + 1]!);
        top = Math.max(top, sub[i + 1]!);
      }
      // Every point on a corner of the bounding box: an axis-parallel rectangle.
      let rectangle = sub.length >= 8;
      for (let i = 0; rectangle && i + 1 < sub.length; i += 2) {
        const onX = Math.abs(sub[i]! - left) <= SLANT || Math.abs(sub[i]! - right) <= SLANT;
        const onY = Math.abs(sub[i + 1]! - bottom) <= SLANT || Math.abs(sub[i + 1]! - top) <= SLANT;
        rectangle = onX && onY;
      }
      if (!rectangle) continue;
      if (top - bottom <= THIN && right - left > top - bottom) add(rules.horizontal, (top + bottom) / 2, left, right);
      else if (right - left <= THIN && top - bottom > right - left) add(rules.vertical, (left + right) / 2, bottom, top);
    }
  }
}

// Glossary terms in a sentence: case-insensitive, on word boundaries, the longest term first at each place, terms
// never overlapping. Indexed by the first word of each term, so a sentence costs a look-up per word whatever the
// glossary's size. Inflected forms are not terms: "contracts" is not "contract" (docs/glossaries.md says why).

export interface TermPair {
  source: string;
  target: string;
}

export interface TermMatch {
  start: number;
  end: number;
  target: string;
}

const WORD = /[\p{L}\p{N}]+/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;

export class TermMatcher {
  /** Lower-cased first word → terms starting with it, longest first. */
  private readonly byFirstWord = new Map<string, { lower: string; target: string }[]>();

  constructor(entries: readonly TermPair[]) {
    for (const e of entries) {
      const lower = e.source.trim().toLowerCase();
      const first = lower.match(WORD)?.[0];
      if (!first) continue;
      const list = this.byFirstWord.get(first) ?? [];
      if (!list.some((t) => t.lower === lower)) list.push({ lower, target: e.target.trim() });
      this.byFirstWord.set(first, list);
    }
    for (const list of this.byFirstWord.values()) list.sort((a, b) => b.lower.length - a.lower.length);
  }

  get size(): number {
    return this.byFirstWord.size;
  }

  /** The terms in `text`, left to right. */
  find(text: string): TermMatch[] {
    const out: TermMatch[] = [];
    if (this.byFirstWord.size === 0) return out;
    const lower = text.toLowerCase();
    // toLowerCase keeps UTF-16 offsets except for a few letters (İ); such a text is matched on its own lengths.
    const sameOffsets = lower.length === text.length;
    let after = 0;
    for (const m of (sameOffsets ? lower : text).matchAll(WORD)) {
      const start = m.index;
      if (start < after) continue;
      const terms = this.byFirstWord.get(m[0].toLowerCase());
      if (!terms) continue;
      for (const t of terms) {
        const end = start + t.lower.length;
        const piece = sameOffsets ? lower.slice(start, end) : text.slice(start, end).toLowerCase();
        if (piece !== t.lower || WORD_CHAR.test(text.charAt(end))) continue;
        out.push({ start, end, target: t.target });
        after = end;
        break;
      }
    }
    return out;
  }
}

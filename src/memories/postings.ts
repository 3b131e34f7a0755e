// The fuzzy index as stored: posting lists of index words (text.ts) cut into blocks, one row per (word, block), not
// one row per (word, segment). A block holds the ids of up to BLOCK_IDS segments in increasing order, written as the
// first id (a column, so a segment's blocks are found by range) and the gaps after it, comma-separated decimals
// (ids of one import are consecutive, so most gaps are 1 or a few digits). An import collects a few million
// postings in memory and writes them as blocks: tens of rows where one row per posting made millions.

/** Most segment ids in one block (a common word's list is many blocks, so one segment's removal rewrites one). */
export const BLOCK_IDS = 16_384;
/** Postings an import holds in memory before writing them as blocks (about 8 bytes each). */
export const FLUSH_POSTINGS = 4_000_000;

/** One row of the index: the ids are `first` and the gaps in `segs`. */
export interface PostingBlock {
  word: number;
  first: number;
  last: number;
  n: number;
  segs: string;
}

/** A block of ids given in increasing order. */
export function encodeBlock(word: number, ids: readonly number[]): PostingBlock {
  let segs = '';
  for (let i = 1; i < ids.length; i++) segs += (i > 1 ? ',' : '') + (ids[i]! - ids[i - 1]!);
  return { word, first: ids[0]!, last: ids[ids.length - 1]!, n: ids.length, segs };
}

export function decodeBlock(first: number, segs: string, into: number[] = []): number[] {
  into.push(first);
  if (!segs) return into;
  let id = first;
  let gap = 0;
  for (let i = 0; i < segs.length; i++) {
    const c = segs.charCodeAt(i);
    if (c === 44) {
      id += gap;
      into.push(id);
      gap = 0;
    } else gap = gap * 10 + (c - 48);
  }
  into.push(id + gap);
  return into;
}

/** Postings gathered in memory (segment ids in increasing order per word), taken as blocks. */
export class PostingBuilder {
  private lists = new Map<number, number[]>();
  size = 0;

  add(seg: number, words: readonly number[]): void {
    for (const w of words) {
      const l = this.lists.get(w);
      if (l) l.push(seg);
      else this.lists.set(w, [seg]);
    }
    this.size += words.length;
  }

  /** The blocks of everything added, by word; the builder is empty after. */
  take(): PostingBlock[] {
    const out: PostingBlock[] = [];
    const words = [...this.lists.keys()].sort((a, b) => a - b);
    for (const w of words) {
      const l = this.lists.get(w)!;
      l.sort((a, b) => a - b); // already in order but for a duplicate's rows: linear then
      for (let i = 0; i < l.length; i += BLOCK_IDS) out.push(encodeBlock(w, l.slice(i, i + BLOCK_IDS)));
    }
    this.lists = new Map();
    this.size = 0;
    return out;
  }
}

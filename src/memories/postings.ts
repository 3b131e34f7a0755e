// The fuzzy index as stored: posting lists of index words (text.ts) cut into blocks, one row per (word, block), not
// one row per (word, segment). A block holds the ids of up to BLOCK_IDS segments in increasing order, written as the
// first id (a column, so a segment's blocks are found by range) and the gaps after it, comma-separated decimals
// (ids of one import are consecutive, so most gaps are 1 or a few digits). An import collects a few million
// postings in memory and writes them as blocks: tens of rows where one row per posting made millions.

/** Most segment ids in one block (a common word's list is many blocks, so one segment's removal rewrites one). */
export const BLOCK_IDS = 16_384;
/** Postings an import holds in memory before writing them as blocks (about 8 bytes each). */
export const FLUSH_POSTINGS = 2_000_000;

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

/** A segment's offset within a run of the builder: word × SPAN + offset stays an exact double (words are 31-bit). */
const SPAN = 2 ** 22;

/**
 * Postings gathered in memory, taken as blocks. Each posting is one number (word × SPAN + the segment's offset from
 * the run's first), in a typed array: 8 bytes a posting, no object per word or list, sorted natively when taken. A
 * segment id before the run's first or SPAN past it ends the run (its blocks are made then) and starts another.
 */
export class PostingBuilder {
  private keys = new Float64Array(4096);
  private count = 0;
  private base = 0;
  /** Runs ended, each sorted, with its first segment id. */
  private runs: { keys: Float64Array; base: number }[] = [];
  /** Postings added since the last take. */
  size = 0;

  add(seg: number, words: readonly number[]): void {
    if (this.count && (seg < this.base || seg - this.base >= SPAN)) {
      this.runs.push({ keys: this.keys.slice(0, this.count).sort(), base: this.base });
      this.count = 0;
    }
    if (!this.count) this.base = seg;
    if (this.count + words.length > this.keys.length) {
      const keys = new Float64Array(Math.max(this.keys.length * 2, this.count + words.length));
      keys.set(this.keys.subarray(0, this.count));
      this.keys = keys;
    }
    const off = seg - this.base;
    for (const w of words) this.keys[this.count++] = w * SPAN + off;
    this.size += words.length;
  }

  /** The blocks of everything added, made as they are read (never all held at once); the builder is empty after. */
  *take(): Generator<PostingBlock> {
    const runs = this.runs;
    // The array goes with the runs: adds after this one start a new one.
    if (this.count) runs.push({ keys: this.keys.subarray(0, this.count).sort(), base: this.base });
    if (this.count) this.keys = new Float64Array(4096);
    this.runs = [];
    this.count = 0;
    this.size = 0;
    for (const { keys: k, base } of runs) {
      let i = 0;
      while (i < k.length) {
        const word = Math.floor(k[i]! / SPAN);
        const ids: number[] = [];
        for (; i < k.length && Math.floor(k[i]! / SPAN) === word; i++) ids.push(base + (k[i]! - word * SPAN));
        for (let j = 0; j < ids.length; j += BLOCK_IDS) yield encodeBlock(word, ids.length <= BLOCK_IDS ? ids : ids.slice(j, j + BLOCK_IDS));
      }
    }
  }
}

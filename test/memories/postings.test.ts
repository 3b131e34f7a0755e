// Posting blocks (src/memories/postings.ts): what a builder takes in comes out as blocks that decode to the same
// lists, cut at BLOCK_IDS ids, across ids far apart (a new run) and ids given out of order.
import { describe, expect, it } from 'vitest';
import { BLOCK_IDS, decodeBlock, encodeBlock, PostingBuilder } from '../../src/memories/postings.ts';

/** word → ids, from blocks. */
function lists(blocks: Iterable<{ word: number; first: number; segs: string; n: number; last: number }>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const b of blocks) {
    const ids = decodeBlock(b.first, b.segs);
    expect(ids.length).toBe(b.n);
    expect(ids[ids.length - 1]).toBe(b.last);
    expect(ids.length).toBeLessThanOrEqual(BLOCK_IDS);
    const l = out.get(b.word);
    if (l) l.push(...ids);
    else out.set(b.word, ids);
  }
  for (const l of out.values()) l.sort((a, b) => a - b);
  return out;
}

describe('posting blocks', () => {
  it('a block decodes to its ids', () => {
    const ids = [7, 8, 9, 120, 5_000_000_000];
    const b = encodeBlock(3, ids);
    expect(b).toMatchObject({ word: 3, first: 7, last: 5_000_000_000, n: 5, segs: '1,1,111,4999999880' });
    expect(decodeBlock(b.first, b.segs)).toEqual(ids);
    expect(decodeBlock(42, '')).toEqual([42]);
  });

  it('a builder gives back every posting, a common word in several blocks, ids far apart and out of order', () => {
    const want = new Map<number, number[]>();
    const builder = new PostingBuilder();
    const add = (seg: number, words: number[]) => {
      builder.add(seg, words);
      for (const w of words) {
        const l = want.get(w);
        if (l) l.push(seg);
        else want.set(w, [seg]);
      }
    };
    const top = 2 ** 31 - 1;
    for (let seg = 1000; seg < 1000 + 2 * BLOCK_IDS + 5; seg++) add(seg, [top, seg % 7, 100 + seg]);
    add(10 ** 12, [top, 5]); // far past the run's first: a run of its own
    add(3, [top, 6]); // before it: another
    for (const l of want.values()) l.sort((a, b) => a - b);
    expect(builder.size).toBe([...want.values()].reduce((n, l) => n + l.length, 0));
    const blocks = [...builder.take()];
    expect(lists(blocks)).toEqual(want);
    expect(blocks.filter((b) => b.word === top).length).toBeGreaterThanOrEqual(3);
    expect(builder.size).toBe(0);
    expect([...builder.take()]).toEqual([]);
  });
});

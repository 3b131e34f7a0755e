// How much of a text's evidence is new. The model adds one log-likelihood per feature, so "ok ok ok ..." (300 times)
// scores like 300 independent observations of "ok" and comes out certain of some small language; repeating a word
// adds no evidence about the language. The classifier scales its confidence by the share of distinct features
// (never its ranking), so repetitive text, gibberish mostly, gets the confidence of what it actually contains.

/** Distinct 32-bit feature hashes of one text: open addressing with a stamp per text, no clearing, no allocation. */
export class DistinctFeatures {
  private readonly keys = new Int32Array(1 << 14);
  private readonly stamps = new Uint32Array(1 << 14);
  private stamp = 0;
  count = 0;

  reset(): void {
    this.count = 0;
    if (++this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  add(hash: number): void {
    // Past half full the table would slow down; a text that long has shown its variety already.
    if (this.count >= this.keys.length >> 1) return;
    const mask = this.keys.length - 1;
    for (let i = Math.imul(hash, 0x9e3779b1) >>> 18; ; i = (i + 1) & mask) {
      if (this.stamps[i] !== this.stamp) {
        this.stamps[i] = this.stamp;
        this.keys[i] = hash | 0;
        this.count++;
        return;
      }
      if (this.keys[i] === (hash | 0)) return;
    }
  }
}

/**
 * The factor on the confidence's scale: 1 while at least half the features are distinct (ordinary sentences: common
 * letters and short words repeat, well within that), then in proportion — a word said 30 times weighs as ~2 words.
 */
export function evidenceShare(distinct: number, features: number): number {
  return features === 0 ? 1 : Math.min(1, (2 * distinct) / features);
}

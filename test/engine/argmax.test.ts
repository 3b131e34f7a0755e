import { describe, expect, it } from 'vitest';
import { argmax } from '../../src/engine/search/scores.ts';

/** The plain loop greedy search used before (torch.argmax semantics: first index of the maximum). */
function reference(scores: Float32Array): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let v = 0; v < scores.length; v++) {
    if (scores[v]! > bestScore) {
      bestScore = scores[v]!;
      best = v;
    }
  }
  return best;
}

describe('argmax', () => {
  it('returns the first index of the maximum, whatever the lane it falls in', () => {
    expect(argmax(Float32Array.from([1, 5, 2, 5, 5]))).toBe(1);
    expect(argmax(Float32Array.from([0, 0, 0, 0, 0, 0, 7, 7]))).toBe(6);
    expect(argmax(Float32Array.from([3, 1, 1, 1, 1, 1, 1, 1, 1, 3]))).toBe(0);
    expect(argmax(Float32Array.from([1, 1, 1, 1, 1, 1, 1, 1, 9]))).toBe(8); // in the tail after the 4-wide loop
  });

  it('never picks NaN, and answers 0 when nothing beats -Infinity', () => {
    expect(argmax(Float32Array.from([NaN, 2, NaN, 3, NaN]))).toBe(3);
    expect(argmax(new Float32Array(7).fill(-Infinity))).toBe(0);
    expect(argmax(Float32Array.from([NaN, NaN, NaN]))).toBe(0);
    expect(argmax(Float32Array.from([-Infinity, -Infinity, -3, -Infinity]))).toBe(2);
    expect(argmax(Float32Array.from([-0, 0, -1]))).toBe(0);
  });

  it('agrees with the plain loop on random rows with many ties and special values', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pool = [NaN, -Infinity, Infinity, -0, 0, 1, 2, -2];
    for (let k = 0; k < 3000; k++) {
      const n = 1 + Math.floor(rand() * 40);
      const row = Float32Array.from({ length: n }, () => (k % 2 ? pool[Math.floor(rand() * pool.length)]! : Math.floor(rand() * 4)));
      expect(argmax(row)).toBe(reference(row));
    }
    const logits = Float32Array.from({ length: 58101 }, () => rand() * 20 - 10);
    expect(argmax(logits)).toBe(reference(logits));
  });
});

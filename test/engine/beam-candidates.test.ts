// The decoder's search outputs (top-candidates.ts withSearchOutputs): each row's max, log Σ exp(x − max) and k best
// logits (ties to the lower id); and the engine's beam translations keep the reference's beam output with the pass
// on or off (on, the Loops rank from these statistics; off, beam-rank.ts's model computes its own).
import { describe, expect, it } from 'vitest';
import ort from 'onnxruntime-node';
import { softmaxStats } from '../../src/engine/search/scores.ts';
import { SEARCH, withSearchOutputs } from '../../src/engine/search-graphs/top-candidates.ts';
import { identityLogitsModel, nllbDev, onAndOff, readDev, type MarianDevRow } from './helpers.ts';

function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** JavaScript's order of a row: score desc, token id asc. */
const bestFirst = (row: Float32Array, m: number) => [...row.keys()].sort((a, b) => row[b]! - row[a]! || a - b).slice(0, m);

describe('withSearchOutputs', () => {
  it('adds each row\'s max, log-sum-exp (over the part of the row asked for) and m best logits (ties to the lower id)', async () => {
    const model = withSearchOutputs(identityLogitsModel())!;
    expect(model).toBeDefined();
    const session = await ort.InferenceSession.create(model, { logSeverityLevel: 3 });
    try {
      const rand = lcg(7);
      const rows = 6;
      const vocab = 3000;
      // Odd rows coarse (many exact ties), even rows wide.
      const x = Float32Array.from({ length: rows * vocab }, (_, i) => (Math.floor(i / vocab) % 2 ? Math.round(rand() * 8) : (rand() - 0.5) * 40));
      for (const [m, statsLen] of [[16, 2 ** 40], [5, vocab], [40, 700]]) {
        const out = await session.run({
          x: new ort.Tensor('float32', x, [rows, 1, vocab]),
          [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(m)), [1]),
          [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(BigInt(statsLen)), [1]),
        });
        for (let r = 0; r < rows; r++) {
          const row = x.subarray(r * vocab, (r + 1) * vocab);
          const js = softmaxStats(row.subarray(0, Math.min(vocab, statsLen)));
          expect((out[SEARCH.max]!.data as Float32Array)[r]).toBe(js.max);
          // Summed in float32 by onnxruntime, in double by JavaScript: the same value to float32 precision.
          expect(Math.abs((out[SEARCH.logSum]!.data as Float32Array)[r]! - js.logSum)).toBeLessThan(1e-5 * Math.max(1, Math.abs(js.logSum)));
          const order = bestFirst(row, m);
          expect([...(out[SEARCH.ids]!.data as BigInt64Array).subarray(r * m, (r + 1) * m)].map(Number)).toEqual(order);
          expect([...(out[SEARCH.values]!.data as Float32Array).subarray(r * m, (r + 1) * m)]).toEqual(order.map((v) => row[v]!));
        }
      }
    } finally {
      await session.release();
    }
  });
});

describe('the engine with the search-outputs pass (beam search)', () => {
  it('keeps the reference beam output and n-best with the search outputs on (the Loops) and off (the ranking model after each step): fp32, int8, forced and banned tokens', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 60);
    const nllb = nllbDev(20);
    expect(nllb.length).toBeGreaterThan(0);
    const out = await onAndOff('search-outputs', {}, async ({ engine }) => {
      const nBest = await engine.translate(marian.slice(0, 15).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 5, alternatives: 3 });
      return [
        ...(await engine.translate(marian.map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
        ...nBest.translations, ...nBest.alternatives!.flat(),
        ...(await engine.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn', { beams: 4 })).translations,
      ];
    });
    // Both paths rank in onnxruntime's float32, from statistics reduced by kernels of different shapes: a last-bit
    // difference of log Σ may reorder a near tie, so the paths are compared as a whole, the reference exactly.
    for (const precision of ['fp32', 'int8']) {
      const on = out[`${precision}on`]!;
      const off = out[`${precision}off`]!;
      const same = on.filter((t, i) => t === off[i]).length;
      console.log(`${precision} beam strings equal with the search outputs on and off: ${same}/${on.length}`);
      expect(same).toBeGreaterThanOrEqual(on.length - 2);
    }
    const beam4 = out.fp32on!.slice(0, 60);
    expect(beam4.filter((t, i) => t === marian[i]!.beam4).length).toBeGreaterThanOrEqual(59);
  });
});

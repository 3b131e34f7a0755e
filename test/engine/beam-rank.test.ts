// Beam search's ranking of a step (search-graphs/beam-rank.ts), the one place it is written: each sentence's 2 × beams best
// (beam, token) by f32(rules(log_softmax) + beam score), ties to the lower flat index, compared with a plain
// JavaScript statement of Hugging Face's rule over every candidate: coarse logits (ties everywhere, so the candidates
// often cannot decide and the whole rows are ranked), banned and forced rows, beams at −1e9 and −∞, a finished
// sentence, and k from 2 × beams + 1 to the whole vocabulary.
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { BEAM_RANK, beamRankModel } from '../../src/engine/search-graphs/beam-rank.ts';
import { SEARCH, withSearchOutputs } from '../../src/engine/search-graphs/top-candidates.ts';
import { logProb } from '../../src/engine/search/scores.ts';
import { identityLogitsModel } from './helpers.ts';

function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** onnxruntime's float32 log-softmax statistics of each row (the numbers the ranking reads), from top-candidates.ts. */
async function statsOf(logits: Float32Array, rows: number, vocab: number) {
  const session = await ort.InferenceSession.create(withSearchOutputs(identityLogitsModel())!, { logSeverityLevel: 3 });
  try {
    const out = await session.run({
      x: new ort.Tensor('float32', logits, [rows, 1, vocab]),
      [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(1n), [1]),
      [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(2n ** 40n), [1]),
    });
    return { max: out[SEARCH.max]!.data as Float32Array, logSum: out[SEARCH.logSum]!.data as Float32Array };
  } finally {
    await session.release();
  }
}

describe('beam search\'s ranking of a step (beamRankModel)', () => {
  it('gives each sentence\'s 2 × beams best candidates as Hugging Face ranks them, ties to the lower flat index, whatever k', async () => {
    const session = await ort.InferenceSession.create(beamRankModel(), { logSeverityLevel: 3 });
    try {
      const rand = lcg(11);
      const vocab = 500;
      const cases = [[3, 4, false], [2, 5, true], [4, 1, false], [1, 2, true]] as const;
      for (const [c, [sentences, beams, shared]] of cases.entries()) for (const k of [2 * beams + 1, 2 * beams + 9, 40, vocab]) {
        const rows = sentences * beams;
        // Coarse logits: many exact ties inside a row and, with equal beam scores, across rows.
        const logits = Float32Array.from({ length: rows * vocab }, () => Math.round(rand() * 10) / 2);
        const scores = Float32Array.from({ length: rows }, (_, r) => (r % beams === 0 ? 0 : r % 3 === 0 ? -Infinity : r % 2 ? -1e9 : Math.fround(-rand() * 2)));
        scores[1] = 0;
        const ruleRows = shared ? 1 : rows;
        const mask = new Float32Array(ruleRows * vocab);
        const keep = new Uint8Array(ruleRows).fill(1);
        const forced = new BigInt64Array(ruleRows).fill(-1n);
        // The third sentence's first beam is finished: its rows' ranking is not read, whatever it holds.
        const done = Uint8Array.from({ length: rows }, (_, r) => Number(c === 0 && Math.floor(r / beams) === 2));
        for (let r = 0; r < ruleRows; r++) {
          mask[r * vocab + 2] = -Infinity;
          mask[r * vocab + (r % 5)] = -Infinity;
        }
        if (!shared && sentences > 1) {
          // The second sentence is forced to one token.
          for (let r = beams; r < 2 * beams; r++) {
            keep[r] = 0;
            forced[r] = 7n;
            mask.fill(-Infinity, r * vocab, (r + 1) * vocab);
            mask[r * vocab + 7] = 0;
          }
        }
        const out = await session.run({
          [BEAM_RANK.logits]: new ort.Tensor('float32', logits, [rows, 1, vocab]),
          [BEAM_RANK.scores]: new ort.Tensor('float32', scores, [rows]),
          [BEAM_RANK.mask]: new ort.Tensor('float32', mask, [ruleRows, 1, vocab]),
          [BEAM_RANK.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]),
          [BEAM_RANK.forced]: new ort.Tensor('int64', forced, [ruleRows, 1, 1]),
          [BEAM_RANK.done]: new ort.Tensor('bool', done, [rows, 1]),
          [BEAM_RANK.beams]: new ort.Tensor('int64', BigInt64Array.of(BigInt(beams)), [1]),
        });
        const stats = await statsOf(logits, rows, vocab);
        const K = 2 * beams;
        expect(out[BEAM_RANK.values]!.dims).toEqual([sentences, K]);
        for (let s = 0; s < sentences; s++) {
          if (done[s * beams]) continue;
          const all: { score: number; from: number; id: number; flat: number }[] = [];
          for (let b = 0; b < beams; b++) {
            const r = s * beams + b;
            const rule = shared ? 0 : r;
            for (let v = 0; v < vocab; v++) {
              const lp = keep[rule] ? logProb(logits[r * vocab + v]!, { max: stats.max[r]!, logSum: stats.logSum[r]! }) : 0;
              all.push({ score: Math.fround(Math.fround(lp + mask[rule * vocab + v]!) + scores[r]!), from: r, id: v, flat: b * vocab + v });
            }
          }
          const best = all.sort((a, b) => (b.score > a.score ? 1 : b.score < a.score ? -1 : a.flat - b.flat)).slice(0, K);
          const at = (name: string) => Array.from((out[name]!.data as ArrayLike<number | bigint>)).slice(s * K, (s + 1) * K).map(Number);
          expect(at(BEAM_RANK.values)).toEqual(best.map((c) => c.score));
          // A candidate at −∞ (a forced row's others) is never a beam or a hypothesis beam search keeps: which one
          // fills such a place is not part of the rule.
          const finite = (xs: number[]) => xs.filter((_, i) => best[i]!.score > -Infinity);
          expect(finite(at(BEAM_RANK.from))).toEqual(finite(best.map((c) => c.from)));
          expect(finite(at(BEAM_RANK.ids))).toEqual(finite(best.map((c) => c.id)));
        }
      }
    } finally {
      await session.release();
    }
  });
});
